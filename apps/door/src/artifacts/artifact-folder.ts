import { lstat, open } from 'node:fs/promises';
import path from 'node:path';
import { ArchiveRefusal } from './archive-bounds.js';
import { ARTIFACT_MANIFEST_MAX_BYTES, ArtifactManifestError, type ArtifactManifest, readArtifactManifest } from './artifact-manifest.js';

/** A skill's text, at most. @unit bytes */
const SKILL_TEXT_MAX_BYTES = 256 * 1024;

/** The first 8 bytes of a WebAssembly component: the magic, then the component layer's version (0x0d 0x00 0x01 0x00). */
const COMPONENT_PREAMBLE = Buffer.from([0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x01, 0x00]);

/** An artifact whose murmur.yaml says one role and whose payload is another (seed 004: not-granted). */
export class RoleMismatch extends Error {
  override readonly name = 'RoleMismatch';
}

/** An artifact folder whose murmur.yaml was read and whose entry agrees with the role it says. */
export interface ArtifactFolder {
  manifest: ArtifactManifest;
  folder: string;
  /** The entry's path on the host. */
  entryFile: string;
}

async function readBounded(file: string, max: number): Promise<Buffer> {
  const handle = await open(file, 'r');
  try {
    const size = (await handle.stat()).size;
    if (size > max) throw new ArchiveRefusal(`${path.basename(file)} is larger than ${max} bytes`);
    const buffer = Buffer.alloc(size);
    await handle.read(buffer, 0, size, 0);
    return buffer;
  } finally {
    await handle.close();
  }
}

const roleOf = (m: ArtifactManifest): string => (m.runtime === 'tool' ? `runtime: tool, implementation: ${m.implementation}` : `runtime: ${m.runtime}`);

/**
 * Reads an unpacked artifact folder (one the runtime made, so nothing in it is a link): its murmur.yaml (its input
 * schema compiled: readArtifactManifest), and whether its entry is what its role says — a component for a wasm tool, an
 * executable for a native one, UTF-8 text of at most SKILL_TEXT_MAX_BYTES for a skill. Throws ArchiveRefusal for a folder that is not an artifact, RoleMismatch for one
 * whose payload disagrees with its role.
 */
export async function readArtifactFolder(folder: string, label: string): Promise<ArtifactFolder> {
  const manifestFile = path.join(folder, 'murmur.yaml');
  const manifestStats = await lstat(manifestFile).catch(() => null);
  if (!manifestStats?.isFile()) throw new ArchiveRefusal(`${label} holds no murmur.yaml`);
  let manifest: ArtifactManifest;
  try {
    manifest = await readArtifactManifest((await readBounded(manifestFile, ARTIFACT_MANIFEST_MAX_BYTES)).toString('utf8'), `${label}'s murmur.yaml`);
  } catch (error) {
    if (error instanceof ArtifactManifestError) throw new ArchiveRefusal(error.message.replaceAll('\n', ' '));
    throw error;
  }
  const entryFile = path.join(folder, manifest.entry);
  const stats = await lstat(entryFile).catch(() => null);
  if (!stats?.isFile()) throw new RoleMismatch(`${manifest.name} ${manifest.version} says entry: ${manifest.entry}, which is not a file of the artifact`);
  const says = `${manifest.name} ${manifest.version} says ${roleOf(manifest)}`;
  if (manifest.runtime === 'skill') {
    const text = await readBounded(entryFile, SKILL_TEXT_MAX_BYTES).catch((error: unknown) => {
      throw new RoleMismatch(
        `${says}, and its entry ${manifest.entry} ${error instanceof ArchiveRefusal ? `is larger than ${SKILL_TEXT_MAX_BYTES} bytes` : 'cannot be read'}`,
      );
    });
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(text);
    } catch {
      throw new RoleMismatch(`${says}, and its entry ${manifest.entry} is not UTF-8 text`);
    }
  } else if (manifest.runtime === 'tool' && manifest.implementation === 'wasm') {
    const head = Buffer.alloc(8);
    const handle = await open(entryFile, 'r');
    await handle.read(head, 0, 8, 0).finally(() => handle.close());
    if (!head.equals(COMPONENT_PREAMBLE)) throw new RoleMismatch(`${says}, and its entry ${manifest.entry} is not a WebAssembly component`);
  } else if (manifest.runtime === 'tool' && (stats.mode & 0o111) === 0) {
    throw new RoleMismatch(`${says}, and its entry ${manifest.entry} is not executable`);
  }
  return { manifest, folder, entryFile };
}
