import { chmodSync, closeSync, existsSync, mkdirSync, openSync, writeFileSync } from 'node:fs';

/**
 * The records are the session's private business (tasks, answers, tokens): folders 0700 and files 0600 whatever the
 * umask. A mode given at creation can only lose bits to the umask, never gain them, so passing it is enough for new
 * files; `chmod` tightens what an older run left behind.
 */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

export function makePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  chmodSync(dir, PRIVATE_DIR_MODE);
}

/** Creates the file empty when it is missing, and makes it 0600 either way. */
export function touchPrivateFile(file: string): void {
  closeSync(openSync(file, 'a', PRIVATE_FILE_MODE));
  chmodSync(file, PRIVATE_FILE_MODE);
}

/** Makes an existing file 0600; a missing one is left missing. */
export function tightenIfPresent(file: string): void {
  if (existsSync(file)) chmodSync(file, PRIVATE_FILE_MODE);
}

export function writePrivateFile(file: string, text: string): void {
  writeFileSync(file, text, { mode: PRIVATE_FILE_MODE });
}
