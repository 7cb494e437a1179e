import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { ARCHIVE_BOUNDS, ArchiveRefusal } from '../artifacts/archive-bounds.js';
import { unpackArchive } from '../artifacts/archive-unpack.js';
import { type ArtifactFolder, readArtifactFolder } from '../artifacts/artifact-folder.js';
import { globalStoreOf, projectStoreOf, publishedDigest, writeToStore } from '../artifacts/store-folder.js';
import { storeRecordText } from '../artifacts/store-record.js';
import { WIT_LEVEL, witFit } from '../artifacts/wit-level.js';
import { ComponentUnprepared, type WasmHost } from '../tools/wasm/wasm-host.js';
import { artifactCommand, capsuleDirOf, commandWasm, inTemporaryFolder, murmurHome } from './artifact-command-support.js';
import { withUsage } from './client-command-support.js';
import { packChecked } from './pack-command.js';
import { printOut } from './terminal-lines.js';
import { UsageError } from './usage-error.js';

export const PUBLISH_USAGE =
  'usage: mur publish ARCHIVE|DIR [--store project|global|PATH] [--capsule DIR] [--json]   write a checked artifact and its record into a store';

/** The WIT level a WASM tool's component was built for, as its own WIT says (docs/artifacts.md): what a record's `wit` holds. */
async function builtLevel(wasm: WasmHost, artifact: ArtifactFolder, digest: string): Promise<string> {
  let wit: string;
  try {
    wit = (await wasm.prepare(digest, artifact.entryFile)).wit;
  } catch (error) {
    if (error instanceof ComponentUnprepared)
      throw new ArchiveRefusal(`${artifact.manifest.name} ${artifact.manifest.version}'s component cannot be read: ${error.message}`);
    throw error;
  }
  const fit = witFit(wit);
  if (fit.fits) return WIT_LEVEL;
  if (fit.level === null)
    throw new ArchiveRefusal(`${artifact.manifest.name} ${artifact.manifest.version} is built for no WIT level this mur knows (${fit.why})`);
  return fit.level;
}

/** The archive mur publish is given, or makes of a folder, read within its bound. */
async function archiveOf(input: string): Promise<Buffer> {
  if ((await stat(input)).isDirectory()) return (await packChecked(input)).archive;
  if ((await stat(input)).size > ARCHIVE_BOUNDS.archiveBytes) throw new ArchiveRefusal(`${input} is larger than ${ARCHIVE_BOUNDS.archiveBytes} bytes`);
  return readFile(input);
}

/** mur publish (docs/artifacts.md, "The operators' commands"). */
export function publish(argv: string[]): Promise<number> {
  const { values, positionals } = withUsage(PUBLISH_USAGE, () =>
    parseArgs({
      args: argv,
      allowPositionals: true,
      options: { store: { type: 'string', default: 'project' }, capsule: { type: 'string' }, json: { type: 'boolean', default: false } },
    }),
  );
  if (positionals.length !== 1) throw new UsageError(PUBLISH_USAGE);
  const store = values.store;
  const root = store === 'project' ? projectStoreOf(capsuleDirOf(values.capsule)) : store === 'global' ? globalStoreOf(murmurHome()) : path.resolve(store);
  const label = store === 'project' ? 'the project store' : store === 'global' ? 'the global store' : `the store at ${root}`;
  return artifactCommand(async () => {
    const archive = await archiveOf(path.resolve(positionals[0]!));
    const { manifest, digest, wit } = await inTemporaryFolder(async (folder) => {
      const unpacked = path.join(folder, 'artifact');
      const { digest } = await unpackArchive(Readable.from([archive]), unpacked);
      const artifact = await readArtifactFolder(unpacked, positionals[0]!);
      const wit = artifact.manifest.implementation === 'wasm' ? await builtLevel(commandWasm(), artifact, digest) : null;
      return { manifest: artifact.manifest, digest, wit };
    });
    const published = await publishedDigest(root, manifest.name, manifest.version);
    if (published !== null && published !== digest) {
      throw new ArchiveRefusal(
        `${label} already holds ${manifest.name} ${manifest.version} as ${published}: a published version never changes; publish a new version`,
      );
    }
    const file = await writeToStore(root, manifest.name, manifest.version, archive, storeRecordText(manifest, digest, wit));
    if (values.json) printOut(JSON.stringify({ artifact: manifest.name, version: manifest.version, digest, store: root, archive: file, wit }));
    else printOut(`published ${manifest.name} ${manifest.version} into ${label} (${root})\ndigest ${digest}`);
    return 0;
  });
}
