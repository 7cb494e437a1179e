import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SessionDeadline } from './session-deadline.js';

const start = Date.parse('2026-10-20T13:00:00Z');
const clock = (at: number) => {
  const c = { now: at };
  return { c, now: () => c.now };
};

test('the default margin is five minutes, or a tenth of the deadline when shorter, and at least one second', () => {
  assert.equal(new SessionDeadline(start + 3_600_000, start, undefined).marginSecs, 300);
  assert.equal(new SessionDeadline(start + 1_000_000, start, undefined).marginSecs, 100);
  assert.equal(new SessionDeadline(start + 3_000, start, undefined).marginSecs, 1);
  assert.equal(new SessionDeadline(start + 3_600_000, start, 42).marginSecs, 42);
});

test('the notice comes once, from the margin on, with the time and the whole seconds left', () => {
  const { c, now } = clock(start);
  const deadline = new SessionDeadline(start + 3_600_000, start, undefined, now);
  c.now = start + 3_600_000 - 301_000;
  assert.equal(deadline.takeNotice(), null, 'outside the margin');
  c.now = start + 3_600_000 - 297_400;
  assert.equal(deadline.takeNotice(), 'Session deadline: the runtime ends this session at 2026-10-20T14:00:00Z, in 297 seconds.');
  assert.equal(deadline.takeNotice(), null, 'once per session');
});

test('a margin of 0 sends none; left_secs is 0 once the deadline passed', () => {
  const { c, now } = clock(start);
  const deadline = new SessionDeadline(start + 60_000, start, 0, now);
  c.now = start + 59_999;
  assert.equal(deadline.takeNotice(), null);
  c.now = start + 61_000;
  assert.equal(deadline.leftSecs(), 0);
});
