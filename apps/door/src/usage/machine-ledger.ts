import { closeSync, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import path from 'node:path';
import { makePrivateDir, PRIVATE_FILE_MODE } from '../common/private-files.js';

/**
 * This host's day total of tokens (docs/agent-loop.md, "Spend ceilings"): `$MURMUR_HOME/spend/<YYYY-MM-DD>.ledger`, an
 * append-only file every session writes. A line is one write(2) with O_APPEND, so lines of concurrent sessions never
 * interleave, and the file's order is the one order every reader evaluates:
 *
 * - `R <session> <n> <tokens> <limit>`: a reservation, granted when the total before it plus `tokens` is within `limit`;
 * - `S <session> <n> <tokens>`: its call's reported spend, replacing a granted reservation's count;
 * - `U <session> <tokens>`: a call of a session the ceiling does not cover.
 *
 * A reservation never settled (its session was killed) stays counted: an over-count, never an under-count.
 */
export class MachineLedger {
  private day = '';
  private offset = 0;
  private partial = '';
  private total = 0;
  /** Granted reservations not yet settled, by `<session> <n>`. */
  private readonly granted = new Map<string, number>();
  /** Reservations of this process whose decision it is reading, by `<session> <n>`: the grant and the total before it. */
  private readonly decided = new Map<string, { grant: boolean; before: number } | null>();
  private seq = 0;
  /** The ledger's folder was made (once per process, not once per line). */
  private dirMade = false;

  constructor(
    private readonly dir: string,
    private readonly sessionId: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The host's total for today (UTC), read to the end of the file. */
  tokensToday(): number {
    this.catchUp(this.today());
    return this.total;
  }

  /**
   * Reserves `tokens` against `limit` for one call: granted when the day's total, in file order, leaves room. The
   * reservation's key settles it after the call; null when refused (nothing is counted then). `spent` is the total
   * the decision saw.
   */
  reserve(tokens: number, limit: number): { key: string | null; spent: number } {
    const key = `${this.sessionId} ${++this.seq}`;
    // One day for the line and its reading, so a reservation made at midnight is read where it was written.
    const day = this.today();
    this.decided.set(key, null);
    this.append(day, `R ${key} ${Math.max(0, Math.round(tokens))} ${limit}\n`);
    this.catchUp(day);
    const decision = this.decided.get(key) ?? { grant: false, before: this.total };
    this.decided.delete(key);
    return { key: decision.grant ? key : null, spent: decision.before };
  }

  /** A granted reservation's call spent `tokens`. */
  settle(key: string, tokens: number): void {
    this.append(this.today(), `S ${key} ${Math.max(0, Math.round(tokens))}\n`);
  }

  /** A call of a session the ceiling does not cover spent `tokens`: it still counts in the host's total. */
  add(tokens: number): void {
    if (tokens > 0) this.append(this.today(), `U ${this.sessionId} ${Math.round(tokens)}\n`);
  }

  private file(day: string): string {
    return path.join(this.dir, `${day}.ledger`);
  }

  private today(): string {
    return this.now().toISOString().slice(0, 10);
  }

  private append(day: string, line: string): void {
    if (!this.dirMade) {
      makePrivateDir(this.dir);
      this.dirMade = true;
    }
    const fd = openSync(this.file(day), 'a', PRIVATE_FILE_MODE);
    try {
      writeSync(fd, line);
    } finally {
      closeSync(fd);
    }
  }

  /** Reads what was appended since the last read (a new day starts from nothing) and evaluates it in order. */
  private catchUp(day: string): void {
    if (day !== this.day) {
      this.day = day;
      this.offset = 0;
      this.partial = '';
      this.total = 0;
      this.granted.clear();
    }
    let fd: number;
    try {
      fd = openSync(this.file(day), 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    try {
      const size = fstatSync(fd).size;
      if (size <= this.offset) return;
      const buffer = Buffer.alloc(size - this.offset);
      const read = readSync(fd, buffer, 0, buffer.length, this.offset);
      this.offset += read;
      const text = this.partial + buffer.subarray(0, read).toString('utf8');
      const end = text.lastIndexOf('\n');
      this.partial = text.slice(end + 1);
      for (const line of text.slice(0, end + 1).split('\n')) if (line !== '') this.apply(line);
    } finally {
      closeSync(fd);
    }
  }

  private apply(line: string): void {
    const [kind, session, a, b, c] = line.split(' ');
    if (kind === 'U') {
      this.total += Number(a) || 0;
      return;
    }
    const key = `${session} ${a}`;
    if (kind === 'R') {
      const tokens = Number(b) || 0;
      const limit = Number(c);
      const grant = this.total + tokens <= limit;
      if (this.decided.has(key)) this.decided.set(key, { grant, before: this.total });
      if (grant) {
        this.granted.set(key, tokens);
        this.total += tokens;
      }
    } else if (kind === 'S') {
      const reserved = this.granted.get(key);
      if (reserved === undefined) return;
      this.granted.delete(key);
      this.total += (Number(b) || 0) - reserved;
    }
  }
}
