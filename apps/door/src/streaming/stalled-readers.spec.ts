import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type StalledReader, StalledReaders } from './stalled-readers.js';

const reader = (pinned: Buffer, gone: string[], name: string): StalledReader => ({ pinned, disconnect: () => gone.push(name) });

test('readers stalled on one event pin it once', () => {
  const readers = new StalledReaders(1000);
  const event = Buffer.from('x'.repeat(300));
  const gone: string[] = [];
  for (const name of ['a', 'b', 'c', 'd']) readers.stalled(reader(event, gone, name));
  assert.equal(readers.bytes, 600);
  assert.deepEqual(gone, []);
});

test('past the budget the reader stalled longest is disconnected, and its event unpinned', () => {
  const readers = new StalledReaders(1500);
  const gone: string[] = [];
  readers.stalled(reader(Buffer.from('a'.repeat(300)), gone, 'a'));
  readers.stalled(reader(Buffer.from('b'.repeat(300)), gone, 'b'));
  assert.deepEqual(gone, []);
  readers.stalled(reader(Buffer.from('c'.repeat(300)), gone, 'c'));
  assert.deepEqual(gone, ['a'], 'three distinct events weigh 1,800 bytes: the oldest stall goes');
  assert.equal(readers.bytes, 1200);
});

test('a reader that catches up, or closes, unpins its event', () => {
  const readers = new StalledReaders(1000);
  const gone: string[] = [];
  const event = Buffer.from('a'.repeat(300));
  const a = reader(event, gone, 'a');
  const b = reader(event, gone, 'b');
  readers.stalled(a);
  readers.stalled(b);
  assert.equal(readers.bytes, 600, 'one event pinned by two readers');
  readers.released(a);
  assert.equal(readers.bytes, 600, 'b still pins the same event');
  readers.released(b);
  assert.equal(readers.bytes, 0);
  readers.released(b);
  assert.equal(readers.bytes, 0, 'a second release changes nothing');
});

test('the newest stall stays even alone over the budget', () => {
  const readers = new StalledReaders(100);
  const gone: string[] = [];
  readers.stalled(reader(Buffer.from('z'.repeat(500)), gone, 'z'));
  assert.deepEqual(gone, []);
});
