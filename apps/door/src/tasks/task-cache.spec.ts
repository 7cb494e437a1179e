/** The bounded task mirror (issue 16): live tasks always in memory, ended ones within a byte budget, least recently used out first. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TaskCache } from './task-cache.js';
import type { TaskRow } from './task.entity.js';

function row(id: string, state: TaskRow['state'], change: number, response: string | null = null): TaskRow {
  return {
    id,
    contextId: 'ctx',
    state,
    change,
    statusTimestampMs: 0,
    statusText: null,
    response,
    prompt: null,
    residue: null,
    murmur: null,
    owner: 'public',
    messageId: 'm',
    createdAtMs: 0,
  };
}

describe('TaskCache', () => {
  test('keeps every live task, and ended ones within the budget, least recently used out first', () => {
    const cache = new TaskCache(10_000);
    for (let i = 0; i < 50; i++) cache.put(row(`live${i}`, 'TASK_STATE_WORKING', i, 'x'.repeat(10_000)));
    assert.equal(cache.liveRows().length, 50, 'live tasks are never evicted');
    cache.put(row('a', 'TASK_STATE_COMPLETED', 100, 'a'.repeat(2_000)));
    cache.put(row('b', 'TASK_STATE_COMPLETED', 101, 'b'.repeat(2_000)));
    assert.ok(cache.get('a'), 'a use moves a to the back');
    cache.put(row('c', 'TASK_STATE_COMPLETED', 102, 'c'.repeat(2_000)));
    assert.equal(cache.get('b'), undefined, 'b was least recently used');
    assert.ok(cache.get('a') && cache.get('c'));
    assert.ok(cache.heldBytes <= 10_000, `${cache.heldBytes}`);
  });

  test('reading the most recently used task again keeps the order; reading another one moves it behind', () => {
    const cache = new TaskCache(10_000);
    cache.put(row('a', 'TASK_STATE_COMPLETED', 1, 'a'.repeat(2_000)));
    cache.put(row('b', 'TASK_STATE_COMPLETED', 2, 'b'.repeat(2_000)));
    for (let i = 0; i < 3; i++) assert.ok(cache.get('b'));
    assert.ok(cache.get('a'), 'a is now the most recently used');
    assert.ok(cache.get('b'), 'and b again, after it');
    cache.put(row('c', 'TASK_STATE_COMPLETED', 3, 'c'.repeat(2_000)));
    assert.equal(cache.get('a'), undefined, 'a was least recently used');
    assert.ok(cache.get('b') && cache.get('c'));
    // A newer version of the most recently used task replaces it, and is then the most recently used.
    cache.put(row('c', 'TASK_STATE_FAILED', 4, 'c'.repeat(2_000)));
    assert.ok(cache.get('b'), 'b is read after the new c');
    cache.put(row('d', 'TASK_STATE_COMPLETED', 5, 'd'.repeat(2_000)));
    assert.equal(cache.get('c'), undefined, 'c was least recently used');
    assert.equal(cache.get('b')?.change, 2);
    assert.equal(cache.get('d')?.change, 5);
  });

  test('the row written last stays even alone over the budget; an older version never replaces a newer one', () => {
    const cache = new TaskCache(1_000);
    cache.put(row('big', 'TASK_STATE_COMPLETED', 1, 'x'.repeat(100_000)));
    assert.ok(cache.get('big'));
    cache.put(row('next', 'TASK_STATE_COMPLETED', 2));
    assert.equal(cache.get('big'), undefined);
    cache.put(row('t', 'TASK_STATE_WORKING', 5));
    cache.put(row('t', 'TASK_STATE_SUBMITTED', 4));
    assert.equal(cache.get('t')?.state, 'TASK_STATE_WORKING');
    cache.put(row('t', 'TASK_STATE_COMPLETED', 6));
    assert.equal(cache.liveRows().length, 0, 'an ended task leaves the live set');
  });
});
