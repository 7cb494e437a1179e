import { parseArgs } from 'node:util';
import { readLock, updateLock } from '../artifacts/murmur-lock.js';
import { FULL_NAME } from '../manifest/artifact-entries.js';
import { artifactCommand, capsuleDirOf } from './artifact-command-support.js';
import { withUsage } from './client-command-support.js';
import { printOut } from './terminal-lines.js';
import { UsageError } from './usage-error.js';

export const REMOVE_USAGE = "usage: mur remove NAME [--capsule DIR] [--json]   remove an artifact's pin from murmur.lock, whatever its origin";

/** mur remove: the operator's removal of a pin, whoever made it (docs/artifacts.md). */
export function remove(argv: string[]): Promise<number> {
  const { values, positionals } = withUsage(REMOVE_USAGE, () =>
    parseArgs({ args: argv, allowPositionals: true, options: { capsule: { type: 'string' }, json: { type: 'boolean', default: false } } }),
  );
  if (positionals.length !== 1 || !FULL_NAME.test(positionals[0]!)) throw new UsageError(REMOVE_USAGE);
  const name = positionals[0]!;
  const capsuleDir = capsuleDirOf(values.capsule);
  return artifactCommand(async () => {
    if ((await readLock(capsuleDir)).artifacts[name] === undefined) throw new UsageError(`murmur.lock pins no ${name}`);
    const removed = await updateLock(capsuleDir, (lock) => {
      const { [name]: pin, ...rest } = lock.artifacts;
      return { lock: { ...lock, artifacts: rest }, result: pin };
    });
    if (values.json) printOut(JSON.stringify({ artifact: name, version: removed?.version ?? null, removed: removed !== undefined }));
    else printOut(removed === undefined ? `murmur.lock pins no ${name}` : `removed ${name} ${removed.version} from murmur.lock`);
    return 0;
  });
}
