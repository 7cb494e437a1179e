/**
 * ListTasks page tokens (seed 000, "ListTasks": pageToken is "" or a nextPageToken this door answered; anything else
 * is -32602). Tokens are sealed with a per-session key kept in the session's records (docs/decisions.md): forged,
 * altered and other sessions' tokens are refused; a token from the same session is accepted, also after --resume.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { decodePageToken, encodePageToken } from '@murmur/protocol';
import { type DoorProcess, makeCapsule, manifestYaml, runDoor } from './support/door-process.js';
import { rpc, send } from './support/rpc.js';

const SCRIPT = 'default:\n  turns:\n    - answer: ok\n';
const REFUSAL = 'Invalid params: pageToken must be "" or a nextPageToken this door answered';

let one: DoorProcess;
let two: DoorProcess;
let capsule: string;

async function seed(door: DoorProcess, count: number): Promise<void> {
  for (let i = 0; i < count; i++) assert.equal((await send(door.url, `task ${i}`)).json.result.task.status.state, 'TASK_STATE_COMPLETED');
}

async function firstPageToken(door: DoorProcess): Promise<string> {
  const answer = await rpc(door.url, 'ListTasks', { pageSize: 1 });
  const token = answer.json.result.nextPageToken as string;
  assert.notEqual(token, '', 'a first page of one task names the next');
  return token;
}

function assertRefused(answer: { json: { error?: { code: number; message: string } } }, what: string): void {
  assert.equal(answer.json.error?.code, -32602, `${what}: ${JSON.stringify(answer.json)}`);
  assert.equal(answer.json.error?.message, REFUSAL, what);
}

before(async () => {
  capsule = makeCapsule(manifestYaml({ name: 'pages' }), SCRIPT);
  [one, two] = await Promise.all([runDoor(capsule), runDoor(makeCapsule(manifestYaml({ name: 'pages-two' }), SCRIPT))]);
  await Promise.all([seed(one, 3), seed(two, 3)]);
});
after(async () => {
  await Promise.all([one?.stop(), two?.stop()]);
});

test('a token this session answered pages on, and keeps the seed’s base64 shape', async () => {
  const token = await firstPageToken(one);
  assert.match(token, /^[A-Za-z0-9+/]+={0,2}$/);
  assert.match(atob(token), /^\d+:tsk_[0-9a-f]{32}:[A-Za-z0-9_-]{22}$/);
  const next = await rpc(one.url, 'ListTasks', { pageSize: 1, pageToken: token });
  assert.equal(next.json.result.tasks.length, 1);
});

test('a forged token — a real position with a seal this session never made — is refused', async () => {
  const real = decodePageToken(await firstPageToken(one))!;
  for (const seal of ['AAAAAAAAAAAAAAAAAAAAAA', 'abcdefghijklmnopqrstuv', `${real.seal.slice(0, 21)}${real.seal.endsWith('A') ? 'B' : 'A'}`]) {
    assertRefused(await rpc(one.url, 'ListTasks', { pageToken: encodePageToken({ ...real, seal }) }), `seal ${seal}`);
  }
});

test('an altered token — another position under a real seal — is refused', async () => {
  const real = decodePageToken(await firstPageToken(one))!;
  assertRefused(await rpc(one.url, 'ListTasks', { pageToken: encodePageToken({ ...real, change: real.change + 1 }) }), 'change + 1');
  assertRefused(await rpc(one.url, 'ListTasks', { pageToken: encodePageToken({ ...real, change: real.change - 1 }) }), 'change - 1');
  const otherTask = `tsk_${'0'.repeat(32)}`;
  assertRefused(await rpc(one.url, 'ListTasks', { pageToken: encodePageToken({ ...real, taskId: otherTask }) }), 'another task id');
});

test('an unsealed token in the seed’s example shape is refused', async () => {
  const real = decodePageToken(await firstPageToken(one))!;
  assertRefused(await rpc(one.url, 'ListTasks', { pageToken: btoa(`${real.change}:${real.taskId}`) }), 'no seal');
});

test('another session’s token is refused', async () => {
  assertRefused(await rpc(one.url, 'ListTasks', { pageToken: await firstPageToken(two) }), 'session two’s token at session one');
  assertRefused(await rpc(two.url, 'ListTasks', { pageToken: await firstPageToken(one) }), 'session one’s token at session two');
});

test('the seal is checked in the params’ order: a forged token answers before a bad statusTimestampAfter', async () => {
  const real = decodePageToken(await firstPageToken(one))!;
  const answer = await rpc(one.url, 'ListTasks', {
    pageToken: encodePageToken({ ...real, seal: 'AAAAAAAAAAAAAAAAAAAAAA' }),
    statusTimestampAfter: 'yesterday',
  });
  assertRefused(answer, 'forged token and a bad timestamp');
});

test('a resumed session accepts the tokens it answered before it stopped', async () => {
  const token = await firstPageToken(one);
  const before = await rpc(one.url, 'ListTasks', { pageSize: 1, pageToken: token });
  await one.stop();
  one = await runDoor(capsule, ['--resume', one.sessionId], one.home);
  const after = await rpc(one.url, 'ListTasks', { pageSize: 1, pageToken: token });
  assert.deepEqual(
    after.json.result.tasks.map((t: { id: string }) => t.id),
    before.json.result.tasks.map((t: { id: string }) => t.id),
  );
});
