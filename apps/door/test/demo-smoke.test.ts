/**
 * `mur demo` as `npm start` runs it (README, "The two commands"): both capsules listen, the tour's tasks end as the
 * README shows, and Ctrl-C (SIGINT) stops everything with exit 0. scripts/node-lines.mjs runs this file on Node 22
 * and 24 too.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { MUR_CLI, tempDir } from './support/door-process.js';

test('mur demo stages hello and secure, plays the tour, and exits 0 on SIGINT', async () => {
  const child = spawn(process.execPath, [MUR_CLI, 'demo', '--no-console'], {
    env: { ...process.env, MURMUR_HOME: tempDir('demo-home'), NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const toured = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no tour within 60 s:\n${out}\n${err}`)), 60_000);
    const check = () => {
      if (!out.includes('Ctrl-C stops everything.')) return;
      clearTimeout(timer);
      resolve();
    };
    child.stdout.on('data', check);
    void exited.then(() => reject(new Error(`mur demo exited before its tour ended:\n${out}\n${err}`)));
  });
  try {
    await toured;
  } finally {
    child.kill('SIGINT');
  }
  assert.equal(await exited, 0, err);
  assert.match(out, /mur: hello 0\.1\.0 is listening/);
  assert.match(out, /mur: secure 0\.1\.0 is listening/);
  assert.match(out, /> What is 2\+2\?\n {2}tsk_\S+ TASK_STATE_COMPLETED response: four/);
  assert.match(out, /> Deploy the service\n {2}tsk_\S+ TASK_STATE_INPUT_REQUIRED/);
  assert.match(out, /> \(reply\) main\n {2}tsk_\S+ TASK_STATE_COMPLETED response: Deployed branch main/);
  assert.match(out, /> Show the system\n {2}tsk_\S+ TASK_STATE_COMPLETED/);
});
