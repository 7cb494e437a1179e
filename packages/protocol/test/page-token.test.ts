import assert from 'node:assert/strict';
import test from 'node:test';
import { decodePageToken, encodePageToken } from '../src/index.js';

// Seed "ListTasks": a nextPageToken names a position in the change order and nothing else.
// The seed's example token MTI6dHNrXzAxYTE… is base64 of "12:tsk_01a1…".

const TASK = 'tsk_01a131fc15437521b334719530864c4f';
const SEAL = 'Zm9vYmFyYmF6cXV4X19fXw';

test('a token is base64 of "<change>:<task id>:<seal>", beginning as the seed\'s example does', () => {
  const token = encodePageToken({ change: 12, taskId: TASK, seal: SEAL });
  assert.ok(token.startsWith('MTI6dHNrXzAxYTE'), token);
  assert.equal(atob(token), `12:${TASK}:${SEAL}`);
});

test('a token decodes back to its position', () => {
  for (const change of [0, 1, 12, 999_999_999_999_999]) {
    assert.deepEqual(decodePageToken(encodePageToken({ change, taskId: TASK, seal: SEAL })), { change, taskId: TASK, seal: SEAL });
  }
});

test('a token is plain base64: letters, digits, +, / and padding only', () => {
  for (const change of [1, 22, 333, 4444]) assert.match(encodePageToken({ change, taskId: TASK, seal: SEAL }), /^[A-Za-z0-9+/]+={0,2}$/);
});

test('anything but a token this door answers is refused', () => {
  const bad = [
    '',
    'garbage',
    'MTI6dHNrXzAxYTE',
    btoa('12:tsk_01a1'),
    btoa(`12:${TASK.toUpperCase()}`),
    btoa(`-1:${TASK}`),
    btoa(`1.5:${TASK}`),
    btoa(`:${TASK}`),
    btoa(`1234567890123456:${TASK}`),
    btoa(`12:${TASK}:x`),
    btoa(`12:${TASK}`),
    btoa(`12:${TASK}:${SEAL}x`),
    btoa(`12:${TASK}:${SEAL.slice(1)}`),
    btoa(`12:${TASK}:${SEAL.slice(1)}+`),
    btoa(` 12:${TASK}`),
    btoa(`12:ctx_${TASK.slice(4)}`),
    encodePageToken({ change: 123, taskId: TASK, seal: SEAL }).slice(0, -1),
    `${encodePageToken({ change: 12, taskId: TASK, seal: SEAL })} `,
    `${encodePageToken({ change: 12, taskId: TASK, seal: SEAL })}!`,
    encodePageToken({ change: 12, taskId: TASK, seal: SEAL }).slice(4),
  ];
  for (const token of bad) assert.equal(decodePageToken(token), null, JSON.stringify(token));
});
