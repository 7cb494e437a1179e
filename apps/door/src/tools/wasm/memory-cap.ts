/**
 * Bounds a core module's memories (docs/artifacts.md, "WebAssembly tools"): V8 gives a wasm memory no budget of the
 * worker's heap, so each memory the module defines has its maximum lowered to the bound before the module is
 * compiled; a memory.grow past it then fails, as the component model lets it. A module whose memory starts above the
 * bound, or that is 64-bit or shared, is refused: the bound could not hold it.
 */

const PAGE_BYTES = 65536;
const MEMORY_SECTION = 5;

/** A core module the bound cannot hold. */
export class MemoryUnbounded extends Error {
  override readonly name = 'MemoryUnbounded';
}

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
}

/** `bytes` (a core module) with every memory it defines capped at `maxBytes`. */
export function capMemories(bytes: Uint8Array, maxBytes: number): Uint8Array {
  const maxPages = Math.floor(maxBytes / PAGE_BYTES);
  let at = 8;
  const read = (): number => {
    let result = 0;
    let shift = 0;
    let byte: number;
    do {
      if (at >= bytes.length || shift > 28) throw new MemoryUnbounded('the core module is cut short');
      byte = bytes[at++]!;
      result |= (byte & 0x7f) << shift;
      shift += 7;
    } while (byte & 0x80);
    return result >>> 0;
  };
  const parts: Uint8Array[] = [bytes.subarray(0, 8)];
  while (at < bytes.length) {
    const start = at;
    const id = bytes[at++]!;
    const size = read();
    const end = at + size;
    if (end > bytes.length) throw new MemoryUnbounded('the core module is cut short');
    if (id !== MEMORY_SECTION) {
      parts.push(bytes.subarray(start, end));
      at = end;
      continue;
    }
    const count = read();
    const body = uleb(count);
    for (let i = 0; i < count; i++) {
      const flags = read();
      if (flags > 1) throw new MemoryUnbounded('a memory of the component is 64-bit or shared, which this runtime cannot bound');
      const min = read();
      const max = flags === 1 ? read() : Number.POSITIVE_INFINITY;
      if (min > maxPages) throw new MemoryUnbounded(`a memory of the component starts at ${min * PAGE_BYTES} bytes, more than the bound`);
      body.push(0x01, ...uleb(min), ...uleb(Math.min(max, maxPages)));
    }
    parts.push(Uint8Array.of(MEMORY_SECTION, ...uleb(body.length), ...body));
    at = end;
  }
  return Buffer.concat(parts);
}
