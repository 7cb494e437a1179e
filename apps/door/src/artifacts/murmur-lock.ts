import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { type FileHandle, lstat, open, rename, rm, unlink } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { stringify } from 'yaml';
import * as z from 'zod';
import { ConfigError } from '../config/config-problem.js';
import { parseYamlConfig } from '../config/yaml-config.js';
import { FULL_NAME, FULL_NAME_RULE } from '../manifest/artifact-entries.js';
import { DIGEST } from './content-digest.js';
import { GITHUB_SOURCE } from './github-source-name.js';

const LOCK_FILE = 'murmur.lock';
const LOCK_HOLD_FILE = 'murmur.lock.lk';
/** How long a writer waits for another to finish, and how old a hold is before it is taken as left by a crash. @unit ms */
const HOLD_WAIT_MS = 5000;
const HOLD_STALE_MS = 30_000;

/** A murmur.lock that cannot be read. */
export class LockError extends ConfigError {
  override readonly name = 'LockError';
}

const pin = z.strictObject({
  version: z.string().min(1),
  digest: z.string().regex(DIGEST, 'sha256:<64 hex digits>'),
  runtime: z.enum(['tool', 'skill', 'hook', 'driver']),
  origin: z.enum(['operator', 'agent']),
  fetched_from: z.union([z.enum(['project store', 'global store']), z.string().regex(GITHUB_SOURCE, 'github:<owner>/<repo>')]),
  /** The owner id the source answered, for a pin fetched from one. */
  owner: z
    .string()
    .regex(/^[0-9]+$/)
    .optional(),
});

const lockSchema = z.strictObject({
  lock_version: z.literal(1),
  scopes: z
    .record(
      z.string().regex(/^[a-z0-9][a-z0-9-]{0,38}$/, 'a scope'),
      z.strictObject({
        source: z.string().regex(GITHUB_SOURCE, 'github:<owner>/<repo>').optional(),
        owner: z
          .string()
          .regex(/^[0-9]+$/, 'a numeric owner id')
          .optional(),
      }),
    )
    .default({}),
  artifacts: z.record(z.string().regex(FULL_NAME, FULL_NAME_RULE), pin).default({}),
});

export type Lock = z.output<typeof lockSchema>;
export type Pin = Lock['artifacts'][string];

const HEADER =
  "# murmur.lock: the artifacts this capsule's sessions may use, pinned (docs/artifacts.md).\n# Written by mur pull, mur remove, pull-artifact and remove-artifact.\n";

const emptyLock = (): Lock => ({ lock_version: 1, scopes: {}, artifacts: {} });

const lockFileOf = (capsuleDir: string): string => path.join(capsuleDir, LOCK_FILE);

/** The refusal of a murmur.lock that is a link: it is read and written as a file of the capsule folder, never through one. */
const LINKED = 'is a symbolic link: murmur.lock is read and written only as a regular file of the capsule folder, never through a link';

/**
 * The capsule's murmur.lock, or an empty one when there is none. Opened O_NOFOLLOW (and O_NONBLOCK: a FIFO cannot
 * stall it), then checked on its descriptor. Throws LockError for one that cannot be read, that is a symbolic link, or
 * that is not a regular file.
 */
export async function readLock(capsuleDir: string): Promise<Lock> {
  const file = lockFileOf(capsuleDir);
  let handle: FileHandle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return emptyLock();
    if (code === 'ELOOP') throw new LockError(file, LINKED);
    throw new LockError(file, `cannot be read: ${(error as Error).message}`);
  }
  let text: string;
  try {
    if (!(await handle.stat()).isFile())
      throw new LockError(file, 'is not a regular file: murmur.lock is read and written only as a regular file of the capsule folder');
    text = (await handle.readFile()).toString('utf8');
  } catch (error) {
    if (error instanceof LockError) throw error;
    throw new LockError(file, `cannot be read: ${(error as Error).message}`);
  } finally {
    await handle.close();
  }
  return parseYamlConfig(text, file, lockSchema, LockError);
}

/** The lock as it is written: its version, the scopes, then the pins, each list by name and each pin's keys in one order. */
function ordered(lock: Lock): Lock {
  const byName = <T>(record: Record<string, T>) => Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : 1)));
  const pins = Object.entries(lock.artifacts).map(([name, p]) => [
    name,
    {
      version: p.version,
      digest: p.digest,
      runtime: p.runtime,
      origin: p.origin,
      fetched_from: p.fetched_from,
      ...(p.owner === undefined ? {} : { owner: p.owner }),
    },
  ]);
  return { lock_version: 1, scopes: byName(lock.scopes), artifacts: byName(Object.fromEntries(pins)) };
}

/** Takes murmur.lock.lk (O_EXCL), waiting up to HOLD_WAIT_MS for another writer; a hold older than HOLD_STALE_MS is a crash's. */
async function hold(capsuleDir: string): Promise<() => Promise<void>> {
  const file = path.join(capsuleDir, LOCK_HOLD_FILE);
  const until = Date.now() + HOLD_WAIT_MS;
  for (;;) {
    try {
      await (await open(file, 'wx', 0o644)).close();
      return () => rm(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw new LockError(lockFileOf(capsuleDir), `cannot be written: ${(error as Error).message}`);
      const age = await lstat(file).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      );
      if (age > HOLD_STALE_MS) await rm(file, { force: true });
      else if (Date.now() > until)
        throw new LockError(lockFileOf(capsuleDir), `another writer has held ${LOCK_HOLD_FILE} for more than ${HOLD_WAIT_MS / 1000} s`);
      else await sleep(50);
    }
  }
}

/**
 * Changes murmur.lock under its hold: `change` reads the lock as it is now (another session's pin included) and returns
 * what to write, or throws to write nothing. The file is written whole to a temporary name in the capsule folder, made
 * O_EXCL|O_NOFOLLOW (so never a file a link names), then renamed over murmur.lock (which replaces a name, never writes
 * through one).
 */
export async function updateLock<T>(capsuleDir: string, change: (lock: Lock) => { lock: Lock; result: T }): Promise<T> {
  const release = await hold(capsuleDir);
  try {
    const { lock, result } = change(await readLock(capsuleDir));
    const file = lockFileOf(capsuleDir);
    const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    let handle: FileHandle;
    try {
      handle = await open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
    } catch (error) {
      throw new LockError(file, `cannot be written: ${(error as Error).message}`);
    }
    try {
      await handle.writeFile(HEADER + stringify(ordered(lock)));
      await handle.close();
      await rename(temporary, file);
    } catch (error) {
      await handle.close().catch(() => undefined);
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
    return result;
  } finally {
    await release();
  }
}
