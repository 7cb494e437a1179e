import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LineSplitter, LineTooLongError } from './line-splitter.js';

test('lines come whole however the bytes are cut, a character split across chunks included', () => {
  const splitter = new LineSplitter();
  const bytes = Buffer.from('{"a":"é"}\n{"b":2}\n{"c"');
  const lines: string[] = [];
  for (let i = 0; i < bytes.length; i += 2) lines.push(...splitter.push(bytes.subarray(i, i + 2)));
  assert.deepEqual(lines, ['{"a":"é"}', '{"b":2}']);
  assert.equal(splitter.end(), '{"c"');
  assert.equal(splitter.end(), null);
});

test('a line past the bound is refused as it grows, not held', () => {
  const splitter = new LineSplitter(8);
  assert.deepEqual(splitter.push(Buffer.from('12345678\n1234')), ['12345678']);
  assert.throws(
    () => splitter.push(Buffer.from('56789')),
    (e: unknown) => e instanceof LineTooLongError && e.message === 'a line of more than 8 bytes',
  );
});
