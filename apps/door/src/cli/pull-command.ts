import { parseArgs } from 'node:util';
import { packFolder } from '../artifacts/archive-pack.js';
import { shortDigest } from '../artifacts/content-digest.js';
import { readGithubSource } from '../artifacts/github-source-name.js';
import { readLock, updateLock } from '../artifacts/murmur-lock.js';
import { projectStoreOf, writeToStore } from '../artifacts/store-folder.js';
import { storeRecordText } from '../artifacts/store-record.js';
import { readArtifactRequest } from '../manifest/artifact-entries.js';
import { fetchArtifact } from '../tools/artifacts/artifact-fetch.js';
import { PullRefusal } from '../tools/artifacts/pull-refusal.js';
import { artifactCommand, capsuleDirOf, commandWasm, inTemporaryFolder, murmurHome, sourceApiUrl } from './artifact-command-support.js';
import { withUsage } from './client-command-support.js';
import { printOut } from './terminal-lines.js';
import { UsageError } from './usage-error.js';

export const PULL_USAGE =
  "usage: mur pull NAME[@VERSION] [--capsule DIR] [--source github:OWNER/REPO] [--json]   find an artifact in the stores (then its scope's source), check it, and pin it in murmur.lock";

/**
 * mur pull (docs/artifacts.md, "The operators' commands"): what pull-artifact checks, then a pin with origin: operator.
 * An archive fetched from a source is written into the project store, and the scope's source and owner into the lock.
 */
export function pull(argv: string[]): Promise<number> {
  const { values, positionals } = withUsage(PULL_USAGE, () =>
    parseArgs({
      args: argv,
      allowPositionals: true,
      options: { capsule: { type: 'string' }, source: { type: 'string' }, json: { type: 'boolean', default: false } },
    }),
  );
  if (positionals.length !== 1) throw new UsageError(PULL_USAGE);
  const request = readArtifactRequest(positionals[0]!);
  if (request === null) throw new UsageError(`mur pull takes <scope>/<name> or <scope>/<name>@<version>, not '${positionals[0]}'`);
  if (values.source !== undefined && readGithubSource(values.source) === null)
    throw new UsageError(`--source takes github:<owner>/<repo>, not '${values.source}'`);
  const capsuleDir = capsuleDirOf(values.capsule);
  const { fullName } = request;
  const scope = fullName.split('/')[0]!;
  return artifactCommand(() =>
    inTemporaryFolder(async (workRoot) => {
      const lock = await readLock(capsuleDir);
      const fetched = await fetchArtifact(
        { capsuleDir, murmurHome: murmurHome(), sourceApiUrl: sourceApiUrl(), wasm: commandWasm(), workRoot },
        lock,
        fullName,
        request.version,
        {
          kind: 'operator',
          source: values.source ?? null,
        },
      );
      const { manifest } = fetched.artifact;
      if (fetched.source !== null) {
        // Written to the project store, so the capsule's sessions find it there (its digest is its content's: packing it again keeps it).
        const { archive } = await packFolder(fetched.artifact.folder);
        await writeToStore(projectStoreOf(capsuleDir), fullName, manifest.version, archive, storeRecordText(manifest, fetched.digest, fetched.wit));
      }
      await updateLock(capsuleDir, (now) => {
        const pin = now.artifacts[fullName];
        if (pin !== undefined && (pin.version !== manifest.version || pin.digest !== fetched.digest)) {
          throw PullRefusal.conflict(
            fullName,
            `murmur.lock pins ${pin.version} (${shortDigest(pin.digest)}), and this pull is ${manifest.version} (${shortDigest(fetched.digest)})`,
          );
        }
        const scopes =
          fetched.source === null
            ? now.scopes
            : { ...now.scopes, [scope]: { source: fetched.source, ...(fetched.owner === null ? {} : { owner: fetched.owner }) } };
        const entry = {
          version: manifest.version,
          digest: fetched.digest,
          runtime: manifest.runtime,
          origin: 'operator' as const,
          fetched_from: fetched.fetchedFrom,
          ...(fetched.owner === null ? {} : { owner: fetched.owner }),
        };
        return { lock: { ...now, scopes, artifacts: { ...now.artifacts, [fullName]: entry } }, result: undefined };
      });
      if (values.json) {
        printOut(
          JSON.stringify({
            artifact: fullName,
            version: manifest.version,
            digest: fetched.digest,
            runtime: manifest.runtime,
            origin: 'operator',
            fetchedFrom: fetched.fetchedFrom,
            notes: fetched.notes,
          }),
        );
      } else {
        printOut(
          `pinned ${fullName} ${manifest.version} (${fetched.digest}) from the ${fetched.fetchedFrom.startsWith('github:') ? `source ${fetched.fetchedFrom}` : fetched.fetchedFrom}`,
        );
        for (const note of fetched.notes) printOut(`note: ${note}`);
      }
      return 0;
    }),
  );
}
