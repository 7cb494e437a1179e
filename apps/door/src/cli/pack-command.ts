import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { packFolder } from '../artifacts/archive-pack.js';
import { unpackArchive } from '../artifacts/archive-unpack.js';
import { readArtifactFolder } from '../artifacts/artifact-folder.js';
import { Readable } from 'node:stream';
import { artifactCommand, inTemporaryFolder } from './artifact-command-support.js';
import { withUsage } from './client-command-support.js';
import { printOut } from './terminal-lines.js';
import { UsageError } from './usage-error.js';

export const PACK_USAGE = 'usage: mur pack DIR [--out FILE] [--json]   check an artifact folder and write its archive and digest';

/** The archive of a checked artifact folder, and what mur pack and mur publish say of it. */
export async function packChecked(dir: string): Promise<{ archive: Buffer; digest: string; name: string; version: string }> {
  const { archive, digest } = await packFolder(dir);
  // Checked as every reader will read it: the archive, unpacked, is an artifact whose role agrees with its payload.
  const manifest = await inTemporaryFolder(async (folder) => {
    const unpacked = path.join(folder, 'artifact');
    await unpackArchive(Readable.from([archive]), unpacked);
    return (await readArtifactFolder(unpacked, dir)).manifest;
  });
  return { archive, digest, name: manifest.name, version: manifest.version };
}

/** mur pack (docs/artifacts.md, "The operators' commands"). */
export function pack(argv: string[]): Promise<number> {
  const { values, positionals } = withUsage(PACK_USAGE, () =>
    parseArgs({ args: argv, allowPositionals: true, options: { out: { type: 'string' }, json: { type: 'boolean', default: false } } }),
  );
  if (positionals.length !== 1) throw new UsageError(PACK_USAGE);
  return artifactCommand(async () => {
    const packed = await packChecked(path.resolve(positionals[0]!));
    const out = path.resolve(values.out ?? `${packed.name.replace('/', '-')}-${packed.version}.tgz`);
    await writeFile(out, packed.archive, { mode: 0o644 });
    if (values.json)
      printOut(JSON.stringify({ artifact: packed.name, version: packed.version, archive: out, digest: packed.digest, bytes: packed.archive.length }));
    else printOut(`packed ${packed.name} ${packed.version} into ${out}\ndigest ${packed.digest}`);
    return 0;
  });
}
