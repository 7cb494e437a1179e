import { StringDecoder } from 'node:string_decoder';

/** The longest line a harness may print (docs/harness.md): a tool's whole output can ride one JSON line. @unit bytes */
export const MAX_LINE_BYTES = 8 * 1024 * 1024;

/** A line past MAX_LINE_BYTES: the run stops, the task fails. */
export class LineTooLongError extends Error {
  override readonly name = 'LineTooLongError';
}

/**
 * A stream's bytes as lines, bounded: what a harness prints is untrusted, so a line is held up to `max` bytes and a
 * longer one is refused rather than buffered. Work is linear in what arrives (no rescan of the held part).
 */
export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private held: string[] = [];
  private heldBytes = 0;

  constructor(private readonly max = MAX_LINE_BYTES) {}

  /** The complete lines in `chunk`, without their newline; throws LineTooLongError past the bound. */
  push(chunk: Buffer): string[] {
    const text = this.decoder.write(chunk);
    const lines: string[] = [];
    let from = 0;
    for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', from)) {
      this.hold(text.slice(from, at));
      lines.push(this.held.join(''));
      this.held = [];
      this.heldBytes = 0;
      from = at + 1;
    }
    if (from < text.length) this.hold(text.slice(from));
    return lines;
  }

  /** What is left when the stream ends: a last line with no newline, or null. */
  end(): string | null {
    this.hold(this.decoder.end());
    const rest = this.held.join('');
    this.held = [];
    this.heldBytes = 0;
    return rest === '' ? null : rest;
  }

  private hold(piece: string): void {
    if (piece === '') return;
    this.heldBytes += Buffer.byteLength(piece);
    if (this.heldBytes > this.max) throw new LineTooLongError(`a line of more than ${this.max} bytes`);
    this.held.push(piece);
  }
}
