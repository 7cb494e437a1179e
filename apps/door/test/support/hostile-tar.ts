/**
 * Tar archives of exactly the entries given, whatever they say (links, devices, `../` names, modes): what a hostile
 * publisher could put in an artifact. The attacker tests of the unpack (src/artifacts/archive-attacker.spec.ts) and of
 * a real door (test/artifacts-attacker.test.ts) build their archives here.
 */
import { gzipSync } from 'node:zlib';
import { type Header, pack } from 'tar-stream';

export type TarEntry = Partial<Header> & { name: string; body?: string | Buffer };

/** A tar of exactly these entries: a regular file's size is its body's, every other header field as given. */
async function tarOf(entries: TarEntry[]): Promise<Buffer> {
  const tar = pack();
  const chunks: Buffer[] = [];
  tar.on('data', (c: unknown) => chunks.push(c as Buffer));
  const ended = new Promise<void>((resolve) => tar.on('end', () => resolve()));
  for (const { body, ...header } of entries) {
    const bytes = body === undefined ? undefined : Buffer.from(body);
    const type = header.type ?? 'file';
    if (bytes === undefined) tar.entry({ mode: 0o644, ...header, type });
    else tar.entry({ mode: 0o644, ...header, type, size: bytes.length }, bytes);
  }
  tar.finalize();
  await ended;
  return Buffer.concat(chunks);
}

/** tarOf(), gzipped: an artifact archive's form. */
export const gzTarOf = async (entries: TarEntry[]) => gzipSync(await tarOf(entries));
