import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, renameSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { AppendedLines, eachLine } from './appended-lines.js';

function file(): string {
  return path.join(mkdtempSync(path.join(os.tmpdir(), 'murmur-appended-')), 'trace.jsonl');
}

/** One read's outcome: whether it reset, and every line handed over with its offset. */
async function readOnce(reader: AppendedLines): Promise<{ reset: boolean; lines: [string, number][] }> {
  const seen = { reset: false, lines: [] as [string, number][] };
  await reader.read(
    () => {
      seen.reset = true;
    },
    (block, offset) => {
      for (const { line, offset: at } of eachLine(block, offset)) seen.lines.push([line.toString('utf8'), at]);
    },
  );
  return seen;
}

test('each whole line once, at its offset; a line not yet ended waits for its newline', async () => {
  const trace = file();
  writeFileSync(trace, 'one\ntwo\nthr');
  const reader = new AppendedLines(trace);
  assert.deepEqual(await readOnce(reader), {
    reset: true,
    lines: [
      ['one', 0],
      ['two', 4],
    ],
  });
  appendFileSync(trace, 'ee\nfour\n');
  assert.deepEqual(await readOnce(reader), {
    reset: false,
    lines: [
      ['three', 8],
      ['four', 14],
    ],
  });
  assert.deepEqual(await readOnce(reader), { reset: false, lines: [] });
});

test('a line longer than a read (1 MiB) is joined whole, and the lines after it keep their offsets', async () => {
  const trace = file();
  const long = 'x'.repeat(2.5 * 1024 * 1024);
  writeFileSync(trace, `a\n${long}\nb\n`);
  const { lines } = await readOnce(new AppendedLines(trace));
  assert.deepEqual(
    lines.map(([text, at]) => [text.length, at]),
    [
      [1, 0],
      [long.length, 2],
      [1, 3 + long.length],
    ],
  );
  assert.equal(lines[1][0], long);
});

test('a file replaced or shortened is read afresh after a reset; a file gone resets and hands over nothing', async () => {
  const trace = file();
  writeFileSync(trace, 'one\ntwo\n');
  const reader = new AppendedLines(trace);
  await readOnce(reader);
  const other = `${trace}.new`;
  writeFileSync(other, 'uno\n');
  renameSync(other, trace);
  assert.deepEqual(await readOnce(reader), { reset: true, lines: [['uno', 0]] });
  appendFileSync(trace, 'dos\n');
  truncateSync(trace, 4);
  appendFileSync(trace, 'x\n');
  assert.deepEqual(await readOnce(reader), { reset: false, lines: [['x', 4]] }, 'as long as it was: not shortened, read on');
  truncateSync(trace, 2);
  assert.deepEqual(await readOnce(reader), { reset: true, lines: [] }, 'shorter, and its one line not ended');
  rmSync(trace);
  assert.deepEqual(await readOnce(reader), { reset: true, lines: [] });
});
