import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError, type ConfigProblem, shown } from '../../config/config-problem.js';
import { readArtifactRequest, toolNameOf } from '../../manifest/artifact-entries.js';
import { MANIFEST_FILE } from '../../manifest/manifest.loader.js';
import { lockConflict } from '@murmur/protocol';
import { readLock } from '../../artifacts/murmur-lock.js';
import type { SessionContext } from '../../session/session-context.js';
import type { WasmHost } from '../wasm/wasm-host.js';
import { fetchArtifact } from './artifact-fetch.js';
import { installedOf, toolsFolderOf } from './artifact-installer.js';
import type { InstalledArtifact } from './installed-artifacts.js';
import { PullRefusal } from './pull-refusal.js';

/** A declared artifact that cannot be staged: the door does not start (exit 2, docs/artifacts.md, "Declaring artifacts"). */
class ArtifactStagingError extends ConfigError {
  override readonly name = 'ArtifactStagingError';
}

const ALLOWED = 'an artifact murmur.lock pins, which the project store or the global store holds with the pinned digest, fitting this mur';

/**
 * Stages the capsule's declared artifacts (docs/artifacts.md, "Declaring artifacts"): each pinned in murmur.lock (at
 * the version the entry names, if it names one), found in the stores with the pinned digest, checked as a pull is, and
 * unpacked into runtime/tools/<tool name>/. Reserved names were refused by the manifest's schema, before this. Every
 * problem is reported at once, and nothing is staged when there is one.
 */
export async function stageArtifacts(session: SessionContext, wasm: WasmHost): Promise<InstalledArtifact[]> {
  const toolsFolder = toolsFolderOf(session.runtimeDir);
  // A resumed session starts with its declared artifacts only: what an earlier run pulled is gone from it.
  await rm(toolsFolder, { recursive: true, force: true });
  await mkdir(toolsFolder, { recursive: true, mode: 0o700 });
  const declared = session.manifest.artifacts;
  if (declared.length === 0) return [];
  const manifestFile = path.join(session.capsuleDir, MANIFEST_FILE);
  const lock = await readLock(session.capsuleDir);
  const problems: ConfigProblem[] = [];
  const staged: InstalledArtifact[] = [];
  const problem = (index: number, entry: string, why: string) =>
    problems.push({ path: `artifacts[${index}]`, found: `${shown(entry)} (${why})`, allowed: ALLOWED });
  for (const [index, entry] of declared.entries()) {
    const request = readArtifactRequest(entry)!;
    const { fullName } = request;
    const pin = lock.artifacts[fullName];
    if (pin === undefined) {
      problem(index, entry, `murmur.lock pins no ${fullName}: run mur pull ${fullName}`);
      continue;
    }
    if (request.version !== null && request.version !== pin.version) {
      problem(index, entry, lockConflict(fullName, `murmur.yaml declares ${request.version}, and murmur.lock pins ${pin.version}`));
      continue;
    }
    const scopeOwner = lock.scopes[fullName.split('/')[0]!]?.owner;
    if (pin.owner !== undefined && scopeOwner !== undefined && pin.owner !== scopeOwner) {
      problem(index, entry, `murmur.lock pins ${fullName} for owner ${pin.owner}, and records owner ${scopeOwner} for its scope`);
      continue;
    }
    try {
      const fetched = await fetchArtifact(
        { capsuleDir: session.capsuleDir, murmurHome: session.settings.home, sourceApiUrl: session.settings.sourceApiUrl, wasm, workRoot: toolsFolder },
        lock,
        fullName,
        pin.version,
        { kind: 'staging' },
      );
      const folder = path.join(toolsFolder, toolNameOf(fullName));
      await rename(fetched.artifact.folder, folder);
      staged.push(installedOf(fetched, folder, 'declared'));
    } catch (error) {
      if (!(error instanceof PullRefusal)) throw error;
      problem(index, entry, error.message);
    }
  }
  if (problems.length > 0) {
    await rm(toolsFolder, { recursive: true, force: true });
    throw new ArtifactStagingError(manifestFile, problems);
  }
  return staged;
}
