import { type FileHandle, open } from 'node:fs/promises';

const READ_BYTES = 1 << 20;

/**
 * Whether a file holds `text`'s bytes anywhere, found by a byte search, read 1 MiB at a time (each read overlapping the
 * last by the text's length, so a match cut by a read is found) and stopped at the first match. What it answers for a
 * task id in a trace: every record of the task holds its id (JSON escapes none of an id's characters), so a trace
 * without the bytes holds none of its records; one with them may only mention it, which the trace's index then tells.
 */
export async function fileMentions(file: string, text: string): Promise<boolean> {
  const needle = Buffer.from(text);
  let handle: FileHandle;
  try {
    handle = await open(file, 'r');
  } catch {
    return false;
  }
  try {
    const buffer = Buffer.allocUnsafe(READ_BYTES + needle.length);
    let carried = 0;
    for (let position = 0; ; ) {
      const { bytesRead } = await handle.read(buffer, carried, READ_BYTES, position);
      if (bytesRead === 0) return false;
      const filled = carried + bytesRead;
      if (buffer.subarray(0, filled).indexOf(needle) !== -1) return true;
      position += bytesRead;
      carried = Math.min(needle.length - 1, filled);
      buffer.copy(buffer, 0, filled - carried, filled);
    }
  } finally {
    await handle.close();
  }
}
