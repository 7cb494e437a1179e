import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { ResultFile } from './result-file.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('after a write lands, the next answer waits out the interval even when it arrives later: one task after another is not one write each', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'result-file-'));
  try {
    const errors: Error[] = [];
    // A long interval, so that "still waiting" is not a race with the machine's load.
    const file = new ResultFile(dir, (error) => errors.push(error), 300);
    const target = path.join(dir, 'out', 'result.txt');
    const read = () => (existsSync(target) ? readFileSync(target, 'utf8') : null);

    file.write('first');
    for (let i = 0; i < 2000 && read() !== 'first'; i++) await sleep(1);
    assert.equal(read(), 'first', 'an idle file is written at once');
    // The write has landed (its rename is done) and nothing was waiting then; the next task answers now.
    await sleep(2);
    file.write('second');
    file.write('third');
    await sleep(20);
    assert.equal(read(), 'first', 'an answer given within the interval after the last write waits for it');

    await file.flush();
    assert.equal(read(), 'third', 'flush writes the newest answer, whatever the interval');
    assert.deepEqual(errors, []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an answer waiting out the interval is written when it ends', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'result-file-'));
  try {
    const file = new ResultFile(dir, (error) => assert.fail(error), 30);
    const target = path.join(dir, 'out', 'result.txt');
    const read = () => (existsSync(target) ? readFileSync(target, 'utf8') : null);
    file.write('first');
    for (let i = 0; i < 2000 && read() !== 'first'; i++) await sleep(1);
    file.write('second');
    for (let i = 0; i < 2000 && read() !== 'second'; i++) await sleep(1);
    assert.equal(read(), 'second');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
