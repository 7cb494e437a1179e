import { type FileHandle, open } from 'node:fs/promises';

const READ_BYTES = 1 << 20;
const NEWLINE = 10;

/**
 * A file of lines read as it grows (a trace.jsonl): each read hands over what was appended since the last, as blocks
 * of whole lines, and never the same line twice. A file replaced (another inode) or shortened is read afresh from its
 * start, after `reset`; a last line not yet ended by its newline waits for it. Lines are cut at '\n' bytes, never
 * inside a UTF-8 character; one line cut by a read is held alone until its newline comes, so what is held is one
 * line at most, whatever the file's size.
 */
export class AppendedLines {
  #readBytes = 0;
  #identity: string | null = null;

  constructor(readonly file: string) {}

  /**
   * Reads what was appended: `reset` first when the file is new to this reader, replaced, shortened or gone (then
   * nothing more), and `block` for each run of whole lines — newline-separated, without the last newline — with the
   * file offset of its first byte.
   */
  async read(reset: () => void, block: (lines: Buffer, offset: number) => void): Promise<void> {
    let handle: FileHandle;
    try {
      handle = await open(this.file, 'r');
    } catch {
      this.#start(null, reset);
      return;
    }
    try {
      const { size, ino, dev } = await handle.stat();
      const identity = `${dev}:${ino}`;
      if (identity !== this.#identity || size < this.#readBytes) this.#start(identity, reset);
      let pending: Buffer[] = [];
      let position = this.#readBytes;
      const buffer = Buffer.allocUnsafe(READ_BYTES);
      while (position < size) {
        const { bytesRead } = await handle.read(buffer, 0, Math.min(READ_BYTES, size - position), position);
        if (bytesRead === 0) break;
        const read = buffer.subarray(0, bytesRead);
        const first = read.indexOf(NEWLINE);
        if (first === -1) {
          pending.push(Buffer.from(read));
        } else {
          const last = read.lastIndexOf(NEWLINE);
          const head = pending.length === 0 ? read.subarray(0, first) : Buffer.concat([...pending, read.subarray(0, first)]);
          block(head, this.#readBytes);
          if (last > first) block(read.subarray(first + 1, last), position + first + 1);
          pending = last + 1 < bytesRead ? [Buffer.from(read.subarray(last + 1))] : [];
          this.#readBytes = position + last + 1;
        }
        position += bytesRead;
      }
    } finally {
      await handle.close();
    }
  }

  #start(identity: string | null, reset: () => void): void {
    this.#readBytes = 0;
    this.#identity = identity;
    reset();
  }
}

/** Each line of a block of whole lines (as AppendedLines hands them), with the file offset of its first byte. */
export function* eachLine(lines: Buffer, offset: number): Generator<{ line: Buffer; offset: number }> {
  let from = 0;
  for (;;) {
    const nl = lines.indexOf(NEWLINE, from);
    const end = nl === -1 ? lines.length : nl;
    yield { line: lines.subarray(from, end), offset: offset + from };
    if (nl === -1) return;
    from = nl + 1;
  }
}
