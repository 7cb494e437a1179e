import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { spawnMur } from './client-cli.js';
import { tempDir } from './door-process.js';

/** Runs `mur ARGS` in a fresh MURMUR_HOME (plus `env`); it must exit 2, announce nothing and leave no session behind. Its stderr. */
export async function refusedRun(args: string[], env: Record<string, string> = {}): Promise<string> {
  const home = tempDir('home');
  const result = await spawnMur(args, home, env).exited;
  assert.equal(result.code, 2, result.stderr);
  assert.equal(result.stdout, '', 'nothing is announced');
  const sessions = path.join(home, 'sessions');
  assert.ok(!existsSync(sessions) || readdirSync(sessions).length === 0, 'no session is registered');
  return result.stderr;
}
