/**
 * Concurrent intake is bounded by bytes (issue 16; docs/reliability.md): the semaphore, first come first served. The
 * door under it is intake-budget.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { IntakeBudget } from '../common/request-body.js';
import { INTAKE_SMALL_BODY_BYTES, intakeBytesFor, SMALL_INTAKE_BYTES } from './intake-budget.js';
import { bodyLimitFor } from './rpc-routes.js';

describe('the intake budget', () => {
  test('grants in order while there is room; a release lets the next waiter in; a cancelled waiter is skipped', () => {
    const budget = new IntakeBudget(100);
    const granted: string[] = [];
    const releases = new Map<string, () => void>();
    const ask = (name: string, bytes: number) =>
      budget.reserve(bytes, (release) => {
        granted.push(name);
        releases.set(name, release);
      });
    assert.equal(ask('a', 60).waited, false);
    assert.equal(ask('b', 50).waited, true);
    const c = ask('c', 10);
    assert.equal(c.waited, true, 'first come, first served: c does not overtake b');
    const d = ask('d', 10);
    assert.deepEqual(granted, ['a']);
    d.cancel();
    releases.get('a')!();
    releases.get('a')!();
    assert.deepEqual(granted, ['a', 'b', 'c']);
    assert.equal(budget.heldBytes, 60);
    assert.equal(budget.waiting, 0);
    assert.equal(ask('huge', 1_000).waited, true, 'a body larger than the budget waits for all of it');
    releases.get('b')!();
    releases.get('c')!();
    assert.deepEqual(granted, ['a', 'b', 'c', 'huge']);
    assert.equal(budget.heldBytes, 100);
  });

  test('tryReserve takes room only when nothing must wait: not past the budget, not ahead of a waiter', () => {
    const budget = new IntakeBudget(100);
    const first = budget.tryReserve(60);
    assert.ok(first, 'room: granted at once');
    assert.equal(budget.tryReserve(50), null, 'no room: nothing is held and nobody waits');
    assert.equal(budget.heldBytes, 60);
    assert.equal(budget.waiting, 0);
    let waiterGranted = false;
    budget.reserve(50, () => {
      waiterGranted = true;
    });
    assert.equal(budget.tryReserve(10), null, 'room for 10, but a waiter is ahead');
    first();
    assert.equal(waiterGranted, true);
    const second = budget.tryReserve(10);
    assert.ok(second);
    assert.equal(budget.heldBytes, 60);
  });

  test('is twice the body limit', () => {
    assert.equal(intakeBytesFor(bodyLimitFor(1000, 1)), 16 * 1024 * 1024);
  });

  test('small bodies, up to the documented 64 KiB each, have a budget of their own of 8 MiB', () => {
    assert.equal(INTAKE_SMALL_BODY_BYTES, 64 * 1024);
    assert.equal(SMALL_INTAKE_BYTES, 8 * 1024 * 1024);
  });
});
