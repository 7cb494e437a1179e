import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, mock, test } from 'node:test';
import { ID_PREFIX } from '@murmur/protocol';
import { newId } from './ids.js';

/** The 32 hex digits after a prefix, read as RFC 9562 §5.7 lays them out. */
function fields(id: string, prefix: string): { ms: number; version: number; variant: number; sequence: number } {
  assert.ok(id.startsWith(prefix), `${id} starts with ${prefix}`);
  const hex = id.slice(prefix.length);
  assert.match(hex, /^[0-9a-f]{32}$/);
  return {
    ms: Number.parseInt(hex.slice(0, 12), 16),
    version: Number.parseInt(hex[12] ?? '', 16),
    variant: Number.parseInt(hex[16] ?? '', 16) >> 2,
    sequence: Number.parseInt(hex.slice(13, 16), 16),
  };
}

// Far ahead of any clock this process has read, so the generator's last millisecond is behind the mocked one.
const START = Date.now() + 86_400_000;

// One describe for the file: its hooks are its own when the specs run in one process (scripts/run-tests.mjs).
describe('ids', () => {
  beforeEach(() => mock.timers.enable({ apis: ['Date'], now: START }));
  afterEach(() => mock.timers.reset());

  test('an id is the kind’s prefix and a UUIDv7: the millisecond, version 7, variant 10', () => {
    for (const kind of ['session', 'task', 'context', 'message'] as const) {
      const { ms, version, variant } = fields(newId(kind), ID_PREFIX[kind]);
      assert.equal(ms, START);
      assert.equal(version, 7);
      assert.equal(variant, 0b10);
    }
  });

  test('ids made within one millisecond sort in the order they were made, and the random bits differ', () => {
    mock.timers.tick(1);
    const ids = Array.from({ length: 1000 }, () => newId('task'));
    assert.deepEqual([...ids].sort(), ids);
    assert.equal(new Set(ids.map((id) => id.slice(-15))).size, ids.length);
  });

  test('a sequence that runs out within a millisecond borrows the next one and still sorts (RFC 9562 §6.2)', () => {
    mock.timers.tick(100); // a millisecond no earlier test made ids in
    const ids = Array.from({ length: 4097 }, () => newId('task'));
    assert.deepEqual([...ids].sort(), ids);
    const first = fields(ids[0] ?? '', ID_PREFIX.task);
    const last = fields(ids.at(-1) ?? '', ID_PREFIX.task);
    assert.ok(first.sequence <= 0x7ff, 'a millisecond’s sequence starts in the lower half, leaving room to count up');
    assert.equal(first.ms, START + 100);
    assert.equal(last.ms, START + 101, '4,097 ids cannot share one millisecond’s 12-bit sequence');
    // The clock catching up to the borrowed millisecond does not go back: later ids still sort after.
    mock.timers.tick(1);
    const next = newId('task');
    assert.ok(next > (ids.at(-1) ?? ''));
  });

  test('a clock that steps back does not make an id sort before the ones already made', () => {
    mock.timers.tick(1000);
    const before = newId('task');
    mock.timers.setTime(START);
    const after = newId('task');
    assert.ok(after > before);
    assert.equal(fields(after, ID_PREFIX.task).ms, START + 1000);
  });
});
