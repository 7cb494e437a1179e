import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * out/result.txt: the latest completed task's answer (docs/decisions.md, "out/result.txt"). Written off the event
 * loop (fs/promises, on libuv's thread pool), atomically (a temporary file renamed over it, so a reader sees the
 * old answer or the new one, never a part), and coalesced: while a write is in flight, newer answers wait, and only
 * the newest of them is written next. `write` resolves once a write holding this answer, or a newer one, is in
 * place; the agent loop runs it beside the task's COMPLETED store write and reports the completion after both.
 */
export class ResultFile {
  private readonly dir: string;
  private readonly file: string;
  private readonly temporary: string;
  private madeDir = false;
  private inFlight: Promise<void> | null = null;
  private next: { text: string; waiters: { resolve: () => void; reject: (error: unknown) => void }[] } | null = null;

  constructor(recordsDir: string) {
    this.dir = path.join(recordsDir, 'out');
    this.file = path.join(this.dir, 'result.txt');
    this.temporary = path.join(this.dir, '.result.txt.tmp');
  }

  write(text: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.next ??= { text, waiters: [] };
      this.next.text = text;
      this.next.waiters.push({ resolve, reject });
      if (!this.inFlight) this.start();
    });
  }

  private start(): void {
    const batch = this.next;
    if (!batch) return;
    this.next = null;
    this.inFlight = this.replace(batch.text).then(
      () => {
        for (const w of batch.waiters) w.resolve();
      },
      (error: unknown) => {
        for (const w of batch.waiters) w.reject(error);
      },
    );
    void this.inFlight.then(() => {
      this.inFlight = null;
      this.start();
    });
  }

  private async replace(text: string): Promise<void> {
    if (!this.madeDir) {
      await mkdir(this.dir, { recursive: true });
      this.madeDir = true;
    }
    await writeFile(this.temporary, text);
    await rename(this.temporary, this.file);
  }
}
