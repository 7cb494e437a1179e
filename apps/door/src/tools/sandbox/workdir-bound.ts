import { spawn } from 'node:child_process';
import os from 'node:os';

/** The shortest time between two measures of the workdir, and how many times a measure's own duration the next waits at least. */
const MEASURE_EVERY_MS = 1000;
const SLOWER_THAN_MEASURE = 20;

/** A command's part in the watch: `ended` once the bound ended it; `done()` when it exits. */
export interface WatchedCommand {
  readonly ended: boolean;
  done(): void;
}

/** The bytes a folder takes on disk, or null when it could not be measured. */
export type Measure = (dir: string) => Promise<number | null>;

/**
 * coreutils' `du -sx --block-size=1`: the blocks the folder's files take, hard links counted once, never following a
 * link, never leaving its filesystem; at the lowest CPU priority. It reads names and sizes only, so nothing a command
 * does to the folder meanwhile can make it change anything.
 */
const duMeasure: Measure = (dir) =>
  new Promise((resolve) => {
    const child = spawn('du', ['-sx', '--block-size=1', '--', dir], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      if (child.pid !== undefined) os.setPriority(child.pid, 19);
    } catch {
      // it already ended
    }
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      if (out.length < 4096) out += text;
    });
    child.once('error', () => resolve(null));
    // du says 1 when some file vanished as it walked (a command is working there): its total still stands.
    child.once('close', () => {
      const bytes = Number(/^(\d+)\t/.exec(out)?.[1] ?? Number.NaN);
      resolve(Number.isSafeInteger(bytes) ? bytes : null);
    });
  });

/**
 * capabilities.shell.max_workdir_mib (docs/sandbox.md, "Resource limits"): while any command of the session runs, the
 * workdir is measured once a second (the first a second after a command starts) and never twice at once; when it
 * holds more than the bound and has grown since the last measure, every running command is ended. A command started while the workdir is already over the
 * bound runs on unless the workdir grows, so the model can remove files.
 */
export class WorkdirBound {
  private readonly running = new Set<{ ended: boolean; end: () => void }>();
  private lastBytes: number | null = null;
  private timer: NodeJS.Timeout | null = null;
  private measuring = false;
  private closed = false;

  constructor(
    private readonly dir: string,
    readonly maxMib: number,
    private readonly measure: Measure = duMeasure,
  ) {}

  /** A command started; `end` ends it (its whole sandbox) should the bound be passed while it runs. */
  watch(end: () => void): WatchedCommand {
    const entry = { ended: false, end };
    this.running.add(entry);
    // A command that ends within the interval is never measured: most commands cost no measure at all.
    this.schedule(MEASURE_EVERY_MS);
    return {
      get ended() {
        return entry.ended;
      },
      done: () => {
        this.running.delete(entry);
      },
    };
  }

  close(): void {
    this.closed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(afterMs: number): void {
    if (this.closed || this.timer !== null || this.measuring || this.running.size === 0) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.check();
    }, afterMs);
    this.timer.unref();
  }

  private async check(): Promise<void> {
    this.measuring = true;
    const began = Date.now();
    const bytes = await this.measure(this.dir);
    this.measuring = false;
    if (bytes !== null) {
      const grew = this.lastBytes !== null && bytes > this.lastBytes;
      this.lastBytes = bytes;
      if (grew && bytes > this.maxMib * 1024 * 1024) {
        for (const entry of this.running) {
          entry.ended = true;
          entry.end();
        }
      }
    }
    this.schedule(Math.max(MEASURE_EVERY_MS, (Date.now() - began) * SLOWER_THAN_MEASURE));
  }
}
