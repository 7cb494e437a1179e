/** `npx mur` works right after the README's install and build: the bin is linked, executable, and runs the CLI. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { accessSync, constants, realpathSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { REPO_ROOT } from './support/door-process.js';

const run = promisify(execFile);
const LINK = path.join(REPO_ROOT, 'node_modules', '.bin', 'mur');

test('node_modules/.bin/mur links the door’s committed, executable bin', () => {
  assert.equal(realpathSync(LINK), realpathSync(path.join(REPO_ROOT, 'apps', 'door', 'bin', 'mur.js')));
  accessSync(LINK, constants.X_OK);
});

test('mur --help runs through the link and prints the usage', async () => {
  const { stdout } = await run(LINK, ['--help'], { cwd: REPO_ROOT });
  assert.match(stdout, /^usage: mur <command> \[options\]/);
  assert.match(stdout, /\n {2}run \[DIR\] {5}run a capsule's session/);
});

test('npx mur resolves to the same bin from the repository', async () => {
  const { stdout } = await run('npx', ['--no-install', 'mur', '--help'], { cwd: REPO_ROOT });
  assert.match(stdout, /^usage: mur <command>/);
});
