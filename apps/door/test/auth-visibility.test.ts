/**
 * Who sees a task (seed 000): a declared credential sees the tasks its requests started, the operator sees every
 * task, and a task the caller does not see is answered exactly as an id the session never held — on GetTask,
 * ListTasks, CancelTask, SubscribeToTask, a message's taskId and its referenceTaskIds. murmur.WatchSession and
 * murmur.StopSession reach every task whatever the credential started.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  as,
  assertRpcError,
  assertRpcResult,
  authBlock,
  bearer,
  envelope,
  eventTaskId,
  message,
  neverHeldId,
  openAs,
  RPC_HEADERS,
  type RawAnswer,
  raw,
  type SseStream,
  sendAs,
  startTask,
  tokensOf,
  waitForStateAs,
} from './support/auth.js';
import { type DoorProcess, makeCapsule, manifestYaml, runDoor } from './support/door-process.js';

const TASK_SCOPES = ['SendMessage', 'SendStreamingMessage', 'GetTask', 'ListTasks', 'CancelTask', 'SubscribeToTask'];
const SCRIPT = `
rules:
  - match: '^hold'
    turns:
      - sleep_ms: 30000
        answer: held
  - match: '^ask'
    turns:
      - ask: "Which branch?"
      - answer: "branch {{reply}}"
  - match: '^echo'
    turns:
      - answer: "{{task.text}}"
default:
  turns:
    - answer: quick
`;

let door: DoorProcess;
let tokens: Record<string, string>;
let watch: SseStream;
/** Task ids by the credential that started them. */
const owned: Record<'alice' | 'bob' | 'operator', string[]> = { alice: [], bob: [], operator: [] };
const NEVER = neverHeldId(7);

before(async () => {
  const credentials = { alice: TASK_SCOPES, bob: TASK_SCOPES, watcher: ['murmur.WatchSession'], stopper: ['murmur.StopSession'] };
  door = await runDoor(makeCapsule(manifestYaml({ name: 'visibility', acceptance: 'queue', extra: authBlock(credentials) }), SCRIPT));
  tokens = tokensOf(door);
  const opened = await openAs(door.url, tokens.watcher, 'murmur.WatchSession', {});
  assert.equal(opened.kind, 'stream', opened.kind === 'json' ? opened.text : '');
  if (opened.kind === 'stream') watch = opened.stream;
});
after(async () => {
  watch?.abort();
  await door?.stop();
});

/** The same JSON-RPC request (same id) as `credential`, so two answers can be compared byte for byte. */
function same(credential: string, method: string, params: unknown): Promise<RawAnswer> {
  return raw(door.url, { method: 'POST', path: '/', headers: { ...RPC_HEADERS, ...bearer(tokens[credential]) }, body: envelope(method, params, 'cmp') });
}

/**
 * Asserts that `credential` asking about `hidden` is answered exactly as asking about an id never held: -32001 with
 * metadata.taskId, the whole answer equal once the id is substituted.
 */
async function assertAsNeverHeld(credential: string, method: string, params: (id: string) => unknown, hidden: string, what: string): Promise<void> {
  const [seen, never] = await Promise.all([same(credential, method, params(hidden)), same(credential, method, params(NEVER))]);
  const error = assertRpcError(seen, -32001, what);
  assert.equal(error.data[0].reason, 'TASK_NOT_FOUND', what);
  assert.equal(error.data[0].metadata.taskId, hidden, what);
  assertRpcError(never, -32001, `${what} (never held)`);
  assert.deepEqual(seen.json.error, JSON.parse(JSON.stringify(never.json.error).replaceAll(NEVER, hidden)), `${what}: the whole error is the never-held one`);
  assert.equal(seen.text, never.text.replaceAll(NEVER, hidden), `${what}: byte for byte`);
  assert.equal(seen.headers['content-type'], never.headers['content-type'], what);
  assert.equal(seen.headers['a2a-extensions'], never.headers['a2a-extensions'], what);
}

const replyTo = (taskId: string) => ({ message: { messageId: 'msg-cmp', role: 'ROLE_USER', parts: [{ text: 'main' }], taskId } });

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON shapes
async function listAll(credential: string, params: Record<string, unknown> = {}): Promise<{ ids: string[]; totals: number[]; pages: any[] }> {
  const ids: string[] = [];
  const totals: number[] = [];
  const pages = [];
  let pageToken = '';
  for (;;) {
    const result = assertRpcResult(await as(door.url, tokens[credential], 'ListTasks', { ...params, pageToken }), `${credential} ListTasks`);
    pages.push(result);
    ids.push(...result.tasks.map((t: { id: string }) => t.id));
    totals.push(result.totalSize);
    pageToken = result.nextPageToken;
    if (pageToken === '') return { ids, totals, pages };
  }
}

describe('who sees a task', () => {
  test('alice, bob and the operator each start tasks', async () => {
    for (let i = 0; i < 3; i++) owned.alice.push(await startTask(door.url, tokens.alice, `quick alice ${i}`));
    for (let i = 0; i < 2; i++) owned.bob.push(await startTask(door.url, tokens.bob, `quick bob ${i}`));
    owned.operator.push(await startTask(door.url, tokens.operator, 'quick operator'));
    for (const id of [...owned.alice, ...owned.bob, ...owned.operator]) assert.match(id, /^tsk_[0-9a-f]{32}$/);
  });

  test('GetTask: another credential’s task, or the operator’s, is answered as an id never held', async () => {
    assert.equal(NEVER.length, owned.alice[0].length);
    await assertAsNeverHeld('bob', 'GetTask', (id) => ({ id }), owned.alice[0], "bob GetTask alice's");
    await assertAsNeverHeld('alice', 'GetTask', (id) => ({ id }), owned.bob[0], "alice GetTask bob's");
    await assertAsNeverHeld('alice', 'GetTask', (id) => ({ id }), owned.operator[0], "alice GetTask the operator's");
    const own = assertRpcResult(await as(door.url, tokens.alice, 'GetTask', { id: owned.alice[0] }), 'alice GetTask own');
    assert.equal(own.status.state, 'TASK_STATE_COMPLETED');
    for (const id of [...owned.alice, ...owned.bob, ...owned.operator])
      assertRpcResult(await as(door.url, tokens.operator, 'GetTask', { id }), `operator GetTask ${id}`);
  });

  test('CancelTask and SubscribeToTask on another credential’s ended task: -32001, not the -32002 / -32004 its owner gets', async () => {
    await assertAsNeverHeld('bob', 'CancelTask', (id) => ({ id }), owned.alice[0], "bob CancelTask alice's ended");
    await assertAsNeverHeld('bob', 'SubscribeToTask', (id) => ({ id }), owned.alice[0], "bob SubscribeToTask alice's ended");
    assertRpcError(await as(door.url, tokens.alice, 'CancelTask', { id: owned.alice[0] }), -32002, 'alice CancelTask own ended');
    assertRpcError(await as(door.url, tokens.alice, 'SubscribeToTask', { id: owned.alice[0] }), -32004, 'alice SubscribeToTask own ended');
    assertRpcError(await as(door.url, tokens.operator, 'CancelTask', { id: owned.bob[0] }), -32002, 'operator CancelTask bob ended');
  });

  test('a message naming another credential’s ended task as taskId: -32001, as an id never held', async () => {
    await assertAsNeverHeld('bob', 'SendMessage', replyTo, owned.alice[0], "bob replies to alice's ended task");
    await assertAsNeverHeld('bob', 'SendStreamingMessage', replyTo, owned.alice[0], "bob streams a reply to alice's ended task");
    assertRpcError(await same('alice', 'SendMessage', replyTo(owned.alice[0])), -32004, 'alice replies to her own ended task');
  });

  test('referenceTaskIds naming another credential’s task render "not a task this capsule holds"', async () => {
    const refs = [owned.alice[0], owned.bob[0], NEVER];
    const answer = await sendAs(door.url, tokens.bob, 'echo', { referenceTaskIds: refs });
    const task = assertRpcResult(answer, 'bob echo').task;
    owned.bob.push(task.id);
    const text: string = task.artifacts[0].parts[0].text;
    assert.ok(text.includes(`- ${owned.alice[0]}: not a task this capsule holds`), text);
    assert.ok(text.includes(`- ${NEVER}: not a task this capsule holds`), text);
    assert.ok(!text.includes(`- ${owned.bob[0]}: not a task this capsule holds`), text);
    assert.match(text, new RegExp(`- ${owned.bob[0]}: \\S`));
    // The line for alice's task is exactly the never-held line.
    const lineOf = (id: string) => text.split('\n').find((l) => l.startsWith(`- ${id}:`));
    assert.equal(lineOf(owned.alice[0]), lineOf(NEVER)!.replace(NEVER, owned.alice[0]));

    const aliceView = assertRpcResult(await sendAs(door.url, tokens.alice, 'echo', { referenceTaskIds: refs }), 'alice echo').task;
    owned.alice.push(aliceView.id);
    const aliceText: string = aliceView.artifacts[0].parts[0].text;
    assert.ok(!aliceText.includes(`- ${owned.alice[0]}: not a task this capsule holds`), aliceText);
    assert.ok(aliceText.includes(`- ${owned.bob[0]}: not a task this capsule holds`), aliceText);

    const operatorView = assertRpcResult(await sendAs(door.url, tokens.operator, 'echo', { referenceTaskIds: refs }), 'operator echo').task;
    owned.operator.push(operatorView.id);
    const operatorText: string = operatorView.artifacts[0].parts[0].text;
    assert.ok(!operatorText.includes(`- ${owned.alice[0]}: not a task this capsule holds`), operatorText);
    assert.ok(!operatorText.includes(`- ${owned.bob[0]}: not a task this capsule holds`), operatorText);
    assert.ok(operatorText.includes(`- ${NEVER}: not a task this capsule holds`), operatorText);
  });

  test('ListTasks: each credential lists only its own tasks, and totalSize counts only those', async () => {
    const bob = await listAll('bob');
    assert.deepEqual([...bob.ids].sort(), [...owned.bob].sort());
    assert.deepEqual(new Set(bob.totals), new Set([owned.bob.length]));
    const alice = await listAll('alice');
    assert.deepEqual([...alice.ids].sort(), [...owned.alice].sort());
    assert.deepEqual(new Set(alice.totals), new Set([owned.alice.length]));
    const everything = [...owned.alice, ...owned.bob, ...owned.operator];
    const operator = await listAll('operator');
    assert.deepEqual([...operator.ids].sort(), [...everything].sort());
    assert.equal(operator.totals[0], everything.length);
    // A filter narrows within what the caller sees.
    const completed = await listAll('bob', { status: 'TASK_STATE_COMPLETED' });
    assert.deepEqual([...completed.ids].sort(), [...owned.bob].sort());
  });

  test('paging: alice walks pages of one and sees only her tasks, each once', async () => {
    const walk = await listAll('alice', { pageSize: 1 });
    assert.equal(walk.pages.length, owned.alice.length);
    assert.deepEqual([...walk.ids].sort(), [...owned.alice].sort());
    for (const page of walk.pages) {
      assert.equal(page.pageSize, 1);
      assert.equal(page.totalSize, owned.alice.length);
    }
  });

  test('a page token from alice, passed to bob, shows bob only his own tasks', async () => {
    const first = assertRpcResult(await as(door.url, tokens.alice, 'ListTasks', { pageSize: 1 }), 'alice first page');
    assert.notEqual(first.nextPageToken, '');
    const bobPage = assertRpcResult(await as(door.url, tokens.bob, 'ListTasks', { pageToken: first.nextPageToken, pageSize: 100 }), 'bob with alice’s token');
    assert.equal(bobPage.totalSize, owned.bob.length);
    for (const task of bobPage.tasks) assert.ok(owned.bob.includes(task.id), `bob sees only his own: ${task.id}`);
    // Alice's newest task (her echo) came after every task bob has, so past its position bob sees all of his.
    assert.deepEqual(bobPage.tasks.map((t: { id: string }) => t.id).sort(), [...owned.bob].sort());
    // Walking on from there with bob's own tokens stays within bob's tasks too.
    const walked: string[] = bobPage.tasks.map((t: { id: string }) => t.id);
    let token = bobPage.nextPageToken;
    while (token !== '') {
      const page = assertRpcResult(await as(door.url, tokens.bob, 'ListTasks', { pageToken: token }), 'bob next');
      walked.push(...page.tasks.map((t: { id: string }) => t.id));
      token = page.nextPageToken;
    }
    for (const id of walked) assert.ok(owned.bob.includes(id));
    // The operator with alice's token sees any task past the cursor, not only alice's.
    const operatorPage = assertRpcResult(
      await as(door.url, tokens.operator, 'ListTasks', { pageToken: first.nextPageToken, pageSize: 100 }),
      'operator with alice’s token',
    );
    assert.equal(operatorPage.totalSize, owned.alice.length + owned.bob.length + owned.operator.length);
  });

  const live: Record<string, string> = {};

  test('live tasks: another credential’s waiting, running or queued task is answered as one never held, and left as it was', async () => {
    live.aliceAsk = await startTask(door.url, tokens.alice, 'ask alice');
    await waitForStateAs(door.url, tokens.alice, live.aliceAsk, 'TASK_STATE_INPUT_REQUIRED');
    live.bobHold = await startTask(door.url, tokens.bob, 'hold bob', true);
    await waitForStateAs(door.url, tokens.bob, live.bobHold, 'TASK_STATE_WORKING');
    live.aliceHold = await startTask(door.url, tokens.alice, 'hold alice', true);
    owned.alice.push(live.aliceAsk, live.aliceHold);
    owned.bob.push(live.bobHold);
    assert.equal(assertRpcResult(await as(door.url, tokens.alice, 'GetTask', { id: live.aliceHold }), 'queued').status.state, 'TASK_STATE_SUBMITTED');

    for (const [id, state] of [
      [live.aliceAsk, 'TASK_STATE_INPUT_REQUIRED'],
      [live.aliceHold, 'TASK_STATE_SUBMITTED'],
    ]) {
      await assertAsNeverHeld('bob', 'GetTask', (x) => ({ id: x }), id, `bob GetTask ${state}`);
      await assertAsNeverHeld('bob', 'CancelTask', (x) => ({ id: x }), id, `bob CancelTask ${state}`);
      await assertAsNeverHeld('bob', 'SubscribeToTask', (x) => ({ id: x }), id, `bob SubscribeToTask ${state}`);
      await assertAsNeverHeld('bob', 'SendMessage', replyTo, id, `bob replies to ${state}`);
      assert.equal(assertRpcResult(await as(door.url, tokens.alice, 'GetTask', { id }), 'alice GetTask').status.state, state, 'left as it was');
    }
    await assertAsNeverHeld('alice', 'CancelTask', (x) => ({ id: x }), live.bobHold, 'alice CancelTask bob running');
    await assertAsNeverHeld('alice', 'SubscribeToTask', (x) => ({ id: x }), live.bobHold, 'alice SubscribeToTask bob running');
    assert.equal(assertRpcResult(await as(door.url, tokens.bob, 'GetTask', { id: live.bobHold }), 'bob GetTask').status.state, 'TASK_STATE_WORKING');

    // The owner is served: a stream on her own waiting task opens.
    const sub = await openAs(door.url, tokens.alice, 'SubscribeToTask', { id: live.aliceAsk });
    assert.equal(sub.kind, 'stream', sub.kind === 'json' ? sub.text : '');
    if (sub.kind === 'stream') {
      await sub.stream.until((events) => events.length > 0, 'the opening task');
      assert.equal(sub.stream.events[0].result.task.id, live.aliceAsk);
      sub.stream.abort();
    }
  });

  test('ListTasks with live tasks: still each credential’s own', async () => {
    assert.deepEqual([...(await listAll('bob')).ids].sort(), [...owned.bob].sort());
    assert.deepEqual([...(await listAll('alice')).ids].sort(), [...owned.alice].sort());
    const working = await listAll('alice', { status: 'TASK_STATE_WORKING' });
    assert.deepEqual(working.ids, [], "bob's running task is not in alice's WORKING filter");
  });

  test('murmur.StopSession from a credential holding only that scope cancels every live task, alice’s and bob’s', async () => {
    const result = assertRpcResult(await as(door.url, tokens.stopper, 'murmur.StopSession', {}), 'stopper StopSession');
    assert.deepEqual(result.canceled, [live.aliceAsk, live.bobHold, live.aliceHold].sort());
    assert.equal(result.session_id, door.sessionId);
    for (const id of [live.aliceAsk, live.bobHold, live.aliceHold]) {
      const task = assertRpcResult(await as(door.url, tokens.operator, 'GetTask', { id }), `operator GetTask ${id}`);
      assert.equal(task.status.state, 'TASK_STATE_CANCELED', id);
    }
    // The stopper reaches no task otherwise.
    assert.equal((await as(door.url, tokens.stopper, 'GetTask', { id: live.aliceAsk })).status, 403);
    assert.equal((await as(door.url, tokens.stopper, 'ListTasks', {})).status, 403);
  });

  test('murmur.WatchSession from a credential holding only that scope carries every task’s events', async () => {
    const everything = [...owned.alice, ...owned.bob, ...owned.operator];
    await watch.until((events) => everything.every((id) => events.some((e) => eventTaskId(e) === id)), 'an event of every task');
    const canceledSeen = (id: string) => watch.events.some((e) => eventTaskId(e) === id && e.result?.statusUpdate?.status?.state === 'TASK_STATE_CANCELED');
    await watch.until(() => [live.aliceAsk, live.bobHold, live.aliceHold].every(canceledSeen), 'the three cancellations');
    // The watcher reaches no task otherwise.
    assert.equal((await as(door.url, tokens.watcher, 'GetTask', { id: owned.alice[0] })).status, 403);
    assert.equal((await as(door.url, tokens.watcher, 'SendMessage', { message: message('x') })).status, 403);
  });
});
