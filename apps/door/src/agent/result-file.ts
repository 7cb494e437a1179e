import { mkdir, rename, writeFile } from 'node:fs';
import path from 'node:path';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../common/private-files.js';

/** After a write lands, the next one starts no sooner than this: under load, many answers make one write. @unit ms */
const MIN_INTERVAL_MS = 10;

/**
 * out/result.txt: the latest completed task's answer (docs/decisions.md, "out/result.txt"). Off the hot path:
 * written asynchronously on libuv's thread pool, never awaited by the task or the request that completed it;
 * coalesced — one write at a time, at most one every MIN_INTERVAL_MS, and only the newest answer waiting is
 * written; atomic — a fresh temporary file renamed over it, so a reader sees one whole answer, never a part.
 * The file therefore trails a completion by about a millisecond when idle (MIN_INTERVAL_MS + a write under load),
 * and is brought up to date before the session ends (`flush`, from the agent loop's destroy hook).
 *
 * Why: rewriting it synchronously on every completion cost 200–480 µs of the event loop per task on ext4 (in-place
 * O_TRUNC frees blocks; a rename over it frees the old inode), the largest single cost of a short task
 * (docs/benchmarks.md).
 */
export class ResultFile {
  private readonly dir: string;
  private readonly file: string;
  private readonly temporary: string;
  private madeDir = false;
  private pending: string | null = null;
  private busy = false;
  private timer: NodeJS.Timeout | null = null;
  private idle: (() => void)[] = [];

  constructor(
    recordsDir: string,
    private readonly onError: (error: Error) => void,
    private readonly minIntervalMs = MIN_INTERVAL_MS,
  ) {
    this.dir = path.join(recordsDir, 'out');
    this.file = path.join(this.dir, 'result.txt');
    this.temporary = path.join(this.dir, '.result.txt.tmp');
  }

  /** Schedules `text` as the file's content; returns at once. */
  write(text: string): void {
    this.pending = text;
    if (!this.busy && !this.timer) this.start();
  }

  /** Resolves once every answer given so far is in the file (or its write failed and was reported). */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
      if (!this.busy) this.start();
    }
    if (!this.busy && this.pending === null) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private start(): void {
    const text = this.pending;
    if (text === null) {
      for (const resolve of this.idle.splice(0)) resolve();
      return;
    }
    this.pending = null;
    this.busy = true;
    this.replace(text, (error) => {
      this.busy = false;
      if (error) this.onError(error);
      if (this.idle.length > 0) {
        this.start();
        return;
      }
      // The next write waits out the interval whether or not an answer is waiting yet: with one task after another,
      // each answer arrives after the last write landed, and without this every task would make a write.
      this.timer = setTimeout(() => {
        this.timer = null;
        this.start();
      }, this.minIntervalMs);
      this.timer.unref();
    });
  }

  private replace(text: string, done: (error: Error | null) => void): void {
    const write = () =>
      writeFile(this.temporary, text, { mode: PRIVATE_FILE_MODE }, (error) => {
        if (error) done(error);
        else rename(this.temporary, this.file, done);
      });
    if (this.madeDir) write();
    else
      mkdir(this.dir, { recursive: true, mode: PRIVATE_DIR_MODE }, (error) => {
        if (error) return done(error);
        this.madeDir = true;
        write();
      });
  }
}
