/** The one wait for a round of outbound work (member calls, delegations): its statuses, its wake-ups, its abort. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { awaitOutstanding, Wakeups } from './outbound-round.js';

const says = (left: number) => `waiting on x: ${left} outstanding`;

test('a status when the wait begins and whenever the count changes, none once nothing is left', async () => {
  let left = 3;
  const wakeups = new Wakeups();
  const statuses: string[] = [];
  const waited = awaitOutstanding(
    () => left,
    wakeups,
    new AbortController().signal,
    (s) => statuses.push(s),
    says,
  );
  const tick = () => new Promise((resolve) => setImmediate(resolve));
  await tick();
  wakeups.wake(); // woken with nothing ended: no status
  await tick();
  left = 1;
  wakeups.wake();
  await tick();
  left = 0;
  wakeups.wake();
  await waited;
  assert.deepEqual(statuses, [says(3), says(1)]);
});

test('nothing outstanding: no status and no wait; an abort rejects with the signal’s reason', async () => {
  const statuses: string[] = [];
  await awaitOutstanding(
    () => 0,
    new Wakeups(),
    new AbortController().signal,
    (s) => statuses.push(s),
    says,
  );
  assert.deepEqual(statuses, []);
  const abort = new AbortController();
  const waited = awaitOutstanding(
    () => 1,
    new Wakeups(),
    abort.signal,
    () => undefined,
    says,
  );
  const reason = new Error('the task ended');
  abort.abort(reason);
  await assert.rejects(waited, (error) => error === reason);
  const already = new AbortController();
  already.abort(reason);
  await assert.rejects(new Wakeups().next(already.signal), (error) => error === reason);
});
