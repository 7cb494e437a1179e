import { read } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';

/**
 * Bytes one read takes from the file. Large, so a GiB costs 2,048 reads and writes rather than 16,384 of
 * createReadStream's 64 KiB: the per-chunk work (a read request, a write request, their callbacks) is what a download
 * spends its CPU on beside the kernel's copies (docs/benchmarks.md, "1 GiB download"). @unit bytes
 */
const FILE_CHUNK_BYTES = 512 * 1024;
/**
 * Buffers one download holds. One: a read waits for the socket to take the previous chunk, which costs no throughput
 * (the kernel's socket buffer, megabytes on loopback, keeps sending meanwhile; a second buffer measured the same CPU per
 * GiB) and halves what a client that stops reading pins in the door. @unit buffers
 */
const BUFFERS_PER_DOWNLOAD = 1;
/** Idle buffers kept for the next downloads, so none is allocated per download once the plane has served. */
const SPARE_BUFFERS = 8;

const spare: Buffer[] = [];

/** A chunk buffer from the spares, or a new one. allocUnsafeSlow: it is read into before any of it is sent. */
function takeBuffer(): Buffer {
  return spare.pop() ?? Buffer.allocUnsafeSlow(FILE_CHUNK_BYTES);
}

/** Gives a buffer back once nothing refers to it (its write's callback has run); past SPARE_BUFFERS it is dropped. */
function returnBuffer(buffer: Buffer): void {
  if (spare.length < SPARE_BUFFERS) spare.push(buffer);
}

/**
 * Sends `length` bytes of `file` from `start` as the body of `response`, whose head (with that content-length) is
 * already written (docs/planes.md, "Downloads"). A buffer is read into only after the socket has taken its previous
 * bytes (its write's callback), so memory is bounded by BUFFERS_PER_DOWNLOAD buffers whatever the client's speed, and
 * no buffer is allocated per chunk.
 *
 * The body is never other than announced, silently:
 * - bytes are read up to `start + length` only, so a file that grows meanwhile sends the length announced;
 * - a file that ends before it (shrunk since the head was written), or a read error, destroys the connection: the
 *   client sees a body shorter than its content-length, which every HTTP client reports as an incomplete answer.
 *
 * The descriptor is closed once no read is in flight: at the end, on an error, or when the client goes away.
 */
export function sendFileBytes(file: FileHandle, response: ServerResponse, start: number, length: number): void {
  const free = Array.from({ length: BUFFERS_PER_DOWNLOAD }, takeBuffer);
  const endAt = start + length;
  let position = start;
  let reading = false;
  let done = false;
  let closed = false;

  const closeFile = () => {
    if (closed || reading) return;
    closed = true;
    file.close().catch(() => undefined);
  };
  const finish = () => {
    done = true;
    for (const buffer of free.splice(0)) returnBuffer(buffer);
    closeFile();
  };
  const written = (buffer: Buffer) => () => {
    if (done) return returnBuffer(buffer);
    free.push(buffer);
    pump();
  };
  const pump = (): void => {
    if (done || reading) return;
    if (position >= endAt) {
      finish();
      response.end();
      return;
    }
    const buffer = free.pop();
    if (buffer === undefined) return;
    reading = true;
    read(file.fd, buffer, 0, Math.min(buffer.length, endAt - position), position, (error, bytesRead) => {
      reading = false;
      if (done) {
        returnBuffer(buffer);
        closeFile();
        return;
      }
      if (error !== null || bytesRead === 0) {
        returnBuffer(buffer);
        finish();
        response.destroy();
        return;
      }
      position += bytesRead;
      response.write(bytesRead === buffer.length ? buffer : buffer.subarray(0, bytesRead), written(buffer));
      pump();
    });
  };

  // The client went away (or the connection was destroyed): stop reading; a write still in flight gives its buffer
  // back through its callback, or never (then the buffer is garbage like any other).
  response.once('close', () => {
    if (!done) finish();
  });
  pump();
}
