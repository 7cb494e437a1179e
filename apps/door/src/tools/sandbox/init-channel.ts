import type { Duplex } from 'node:stream';

/** The longest line the sandbox's init writes (a `holders` answer is at most ~2.2 KiB); past it the channel is broken. */
export const MAX_STATUS_LINE_BYTES = 4096;

/** A process still running in a command's sandbox, as the init names it: its pid there and its command name (\xHH-escaped). */
export interface SandboxProcess {
  pid: number;
  comm: string;
}

/** How the command ended: its exit code (128 + n for signal n), and the signal's number when one ended it. */
export interface InitExit {
  code: number;
  signal: number | null;
}

/**
 * Splits a byte stream into lines of at most `max` bytes, in work linear in what arrives: each chunk is scanned once,
 * and a line is joined from its pieces only when its newline comes. A line longer than `max` calls `overflow` once
 * and nothing more is read.
 */
export class BoundedLines {
  private pieces: Buffer[] = [];
  private held = 0;
  private broken = false;

  constructor(
    private readonly max: number,
    private readonly line: (text: string) => void,
    private readonly overflow: () => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (!this.broken) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline < 0 ? chunk.length : newline;
      if (this.held + end - start > this.max) {
        this.broken = true;
        this.pieces = [];
        this.overflow();
        return;
      }
      if (newline < 0) {
        if (end > start) this.pieces.push(chunk.subarray(start, end));
        this.held += end - start;
        return;
      }
      const text = this.pieces.length === 0 ? chunk.toString('utf8', start, end) : Buffer.concat([...this.pieces, chunk.subarray(start, end)]).toString('utf8');
      this.pieces = [];
      this.held = 0;
      start = newline + 1;
      this.line(text);
    }
  }
}

/**
 * The door's end of the socket the sandbox's init reports on (fd 3; docs/sandbox.md, "How"): `started`, `exit <code>`,
 * `holders …`; and the door's requests, `stop` and `holders`. Nothing of the command's can write to it: only the init
 * holds the other end, and the command can neither open nor trace the init.
 */
export class InitChannel {
  /** The command's exit, or null when the sandbox ended without reporting one (it could not start the command). */
  readonly exit: Promise<InitExit | null>;
  private settleExit!: (exit: InitExit | null) => void;
  private readonly holderWaiters: ((found: SandboxProcess[]) => void)[] = [];
  private open = true;

  constructor(private readonly socket: Duplex) {
    this.exit = new Promise((resolve) => {
      this.settleExit = resolve;
    });
    const lines = new BoundedLines(
      MAX_STATUS_LINE_BYTES,
      (text) => this.onLine(text),
      () => this.close(),
    );
    socket.on('data', (chunk: Buffer) => lines.push(chunk));
    // The init exits with unread requests (a `holders` sent as the sandbox empties): a reset, not a fault.
    socket.on('error', () => undefined);
    socket.once('close', () => this.close());
  }

  /** SIGTERM to the command's process group, SIGKILL 2 s later if it still has a process (seed 004's stop). */
  stop(): void {
    this.send('stop\n');
  }

  /** The processes still running in the sandbox besides its init; none once the sandbox is gone. */
  holders(): Promise<SandboxProcess[]> {
    if (!this.open) return Promise.resolve([]);
    return new Promise((resolve) => {
      this.holderWaiters.push(resolve);
      this.send('holders\n');
    });
  }

  private send(text: string): void {
    if (this.open && !this.socket.destroyed) this.socket.write(text);
  }

  private onLine(text: string): void {
    const exit = /^exit (\d{1,3})(?: signal (\d{1,2}))?$/.exec(text);
    if (exit) this.settleExit({ code: Number(exit[1]), signal: exit[2] === undefined ? null : Number(exit[2]) });
    else if (text === 'holders' || text.startsWith('holders ')) this.holderWaiters.shift()?.(parseHolders(text.slice('holders'.length)));
  }

  private close(): void {
    if (!this.open) return;
    this.open = false;
    this.settleExit(null);
    for (const waiter of this.holderWaiters.splice(0)) waiter([]);
    this.socket.destroy();
  }
}

/** ` 7:sleep 9:node +3` → the processes named (a trailing `+N` counts those left unnamed, and is dropped). */
function parseHolders(text: string): SandboxProcess[] {
  const found: SandboxProcess[] = [];
  for (const item of text.trim().split(' ')) {
    const colon = item.indexOf(':');
    const pid = Number(item.slice(0, colon));
    if (colon > 0 && Number.isInteger(pid)) found.push({ pid, comm: item.slice(colon + 1) });
  }
  return found;
}
