/** Proof that a key never reached a session's records or a door's output: every file under MURMUR_HOME is read. */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { DoorProcess } from './door-process.js';

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    const full = path.join(dir, entry);
    const stat = statSync(full);
    if (stat.isDirectory()) out.push(...filesUnder(full));
    else if (stat.isFile()) out.push(full);
  }
  return out;
}

/** Fails naming the file when any file of the door's MURMUR_HOME (store.db, trace, logs, runtime) or its stderr holds a key. */
export function assertKeysAbsent(door: DoorProcess, keys: string[]): void {
  const files = filesUnder(door.home);
  assert.ok(
    files.some((f) => f.endsWith('trace.jsonl')),
    'the scan reads the session records',
  );
  for (const file of files) {
    const bytes = readFileSync(file);
    for (const key of keys) assert.equal(bytes.includes(key), false, `${file} holds a key`);
  }
  for (const key of keys) assert.equal(door.stderr().includes(key), false, 'the door printed a key');
}
