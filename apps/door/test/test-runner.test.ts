/**
 * The door's test runner (scripts/run-tests.mjs) runs every test source there is: each unit spec beside its source at
 * any depth under src/ (src/**\/*.spec.ts) and each black-box suite in test/ (test/*.test.ts). A shell glob one
 * folder deep once left a spec under agent/drivers/ unrun, silently; this fails instead.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const DOOR = fileURLToPath(new URL('../../', import.meta.url));

/** Paths relative to apps/door, with / separators, of the files under `dir` whose names end with `suffix`. */
function sources(dir: string, suffix: string, deep: boolean): string[] {
  return readdirSync(path.join(DOOR, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return deep ? sources(rel, suffix, deep) : [];
    return entry.name.endsWith(suffix) ? [rel] : [];
  });
}

test('npm test runs the runner, and the runner runs the compiled form of every spec and suite source', async () => {
  const manifest = JSON.parse(readFileSync(path.join(DOOR, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  assert.equal(manifest.scripts.test, 'node scripts/ensure-bubblewrap.mjs && node scripts/ensure-native.mjs && node scripts/run-tests.mjs');

  const { stdout } = await promisify(execFile)(process.execPath, ['scripts/run-tests.mjs', '--list'], { cwd: DOOR });
  const listed = new Set(stdout.split('\n').filter((line) => line !== ''));
  const expected = [...sources('src', '.spec.ts', true), ...sources('test', '.test.ts', false)].map((source) => `dist/${source.replace(/\.ts$/, '.js')}`);
  assert.ok(expected.some((file) => file.startsWith('dist/src/')) && expected.includes('dist/test/test-runner.test.js'), expected.join('\n'));
  const unrun = expected.filter((file) => !listed.has(file));
  assert.deepEqual(unrun, [], `spec sources the runner would not run:\n${unrun.join('\n')}`);
});
