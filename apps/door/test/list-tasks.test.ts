/** ListTasks (seed 000, "ListTasks", "Status timestamps", "Who sees a task"): every parameter, the order, and paging. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertRpcError, resultOf, taskOf } from './support/assertions.js';
import { type DoorProcess, makeCapsule, runDoor } from './support/door-process.js';
import { send, waitForState } from './support/rpc.js';
import { getTask, lifecycleManifest, listAll, listTasks } from './support/tasks.js';

const SCRIPT = `
rules:
  - match: '^say (.*)$'
    turns:
      - answer: "{{match.1}}"
  - match: '^deploy'
    turns:
      - ask: Which branch?
      - answer: "deployed {{reply}}"
  - match: '^break'
    turns:
      - fail: the driver failed
default:
  turns:
    - answer: no rule
`;

const CUTOFF_REFUSAL = 'statusTimestampAfter must be an RFC 3339 timestamp, such as 2026-10-13T09:00:00Z';

let door: DoorProcess;
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON shapes
const made: Record<string, any> = {};

before(async () => {
  door = await runDoor(makeCapsule(lifecycleManifest({ acceptance: 'queue' }), SCRIPT), ['--task', 'say launched']);
});
after(() => door.stop());

/** A task listed without artifacts: GetTask's answer with its artifacts removed. */
async function asListed(id: string) {
  const task = resultOf(await getTask(door.url, id));
  delete task.artifacts;
  return task;
}

test("the launch's own task is listed by the first ListTasks", async () => {
  const first = resultOf(await listTasks(door.url));
  assert.ok(door.launchTaskId);
  assert.deepEqual(
    first.tasks.map((t: { id: string }) => t.id),
    [door.launchTaskId],
  );
  assert.equal(first.totalSize, 1);
  const done = await waitForState(door.url, door.launchTaskId!, 'TASK_STATE_COMPLETED');
  assert.equal(done.artifacts[0].parts[0].text, 'launched');
});

test('setup: tasks in two contexts, in several states', async () => {
  made.a1 = taskOf(await send(door.url, 'say a1', { contextId: 'list-a' }));
  made.a2 = taskOf(await send(door.url, 'say a2', { contextId: 'list-a' }));
  made.a3 = taskOf(await send(door.url, 'say a3', { contextId: 'list-a' }));
  made.b1 = taskOf(await send(door.url, 'break b1', { contextId: 'list-b' }));
  made.b2 = taskOf(await send(door.url, 'deploy b2', { contextId: 'list-b' }));
  assert.equal(made.b1.status.state, 'TASK_STATE_FAILED');
  assert.equal(made.b2.status.state, 'TASK_STATE_INPUT_REQUIRED');
});

test('the four members are always present; with no params every task is listed, most recently changed first', async () => {
  const page = resultOf(await listTasks(door.url));
  assert.deepEqual(Object.keys(page).sort(), ['nextPageToken', 'pageSize', 'tasks', 'totalSize']);
  assert.equal(page.pageSize, 50);
  assert.equal(page.nextPageToken, '');
  assert.equal(page.totalSize, 6);
  assert.deepEqual(
    page.tasks.map((t: { id: string }) => t.id),
    [made.b2.id, made.b1.id, made.a3.id, made.a2.id, made.a1.id, door.launchTaskId],
  );
  for (const task of page.tasks) assert.deepEqual(task, await asListed(task.id), 'each task is what GetTask answers, without artifacts');
  const none = resultOf(await listTasks(door.url, { status: 'TASK_STATE_AUTH_REQUIRED' }));
  assert.deepEqual(none, { tasks: [], nextPageToken: '', pageSize: 50, totalSize: 0 });
});

test('contextId filters; "" means every context; a non-string is refused', async () => {
  const a = resultOf(await listTasks(door.url, { contextId: 'list-a' }));
  assert.deepEqual(
    a.tasks.map((t: { id: string }) => t.id),
    [made.a3.id, made.a2.id, made.a1.id],
  );
  assert.equal(a.totalSize, 3);
  assert.equal(resultOf(await listTasks(door.url, { contextId: '' })).totalSize, 6);
  assert.deepEqual(resultOf(await listTasks(door.url, { contextId: 'no-such-context' })), { tasks: [], nextPageToken: '', pageSize: 50, totalSize: 0 });
  assertRpcError(await listTasks(door.url, { contextId: 7 }), -32602, /contextId/);
  assertRpcError(await listTasks(door.url, { contextId: null }), -32602, /contextId/);
});

test('status filters by TASK_STATE_* name; UNSPECIFIED is every state; AUTH_REQUIRED matches none; anything else is refused', async () => {
  const ids = async (status: string) => resultOf(await listTasks(door.url, { status })).tasks.map((t: { id: string }) => t.id);
  assert.deepEqual(await ids('TASK_STATE_COMPLETED'), [made.a3.id, made.a2.id, made.a1.id, door.launchTaskId]);
  assert.deepEqual(await ids('TASK_STATE_FAILED'), [made.b1.id]);
  assert.deepEqual(await ids('TASK_STATE_INPUT_REQUIRED'), [made.b2.id]);
  assert.deepEqual(await ids('TASK_STATE_WORKING'), []);
  assert.equal((await ids('TASK_STATE_UNSPECIFIED')).length, 6);
  assert.deepEqual(await ids('TASK_STATE_AUTH_REQUIRED'), []);
  const both = resultOf(await listTasks(door.url, { contextId: 'list-b', status: 'TASK_STATE_FAILED' }));
  assert.deepEqual(
    both.tasks.map((t: { id: string }) => t.id),
    [made.b1.id],
  );
  assert.equal(both.totalSize, 1);
  for (const bad of ['COMPLETED', 'completed', 'task_state_completed', 'TASK_STATE_DONE', '', 3, null]) {
    assertRpcError(await listTasks(door.url, { status: bad }), -32602, /status/);
  }
});

test('pageSize: 50 when absent, 100 at most, refused below 1 or when not an integer', async () => {
  assert.equal(resultOf(await listTasks(door.url)).pageSize, 50);
  assert.equal(resultOf(await listTasks(door.url, { pageSize: 100 })).pageSize, 100);
  assert.equal(resultOf(await listTasks(door.url, { pageSize: 1000 })).pageSize, 100);
  const one = resultOf(await listTasks(door.url, { pageSize: 1 }));
  assert.equal(one.pageSize, 1);
  assert.equal(one.tasks.length, 1);
  assert.notEqual(one.nextPageToken, '');
  assert.equal(one.totalSize, 6);
  for (const bad of [0, -1, 2.5, '3', null, true]) assertRpcError(await listTasks(door.url, { pageSize: bad }), -32602, /pageSize/);
});

test('pageToken: "" is the first page; anything but a token this door answered is refused', async () => {
  assert.deepEqual(resultOf(await listTasks(door.url, { pageToken: '' })), resultOf(await listTasks(door.url)));
  const refusal = 'Invalid params: pageToken must be "" or a nextPageToken this door answered';
  for (const bad of ['garbage', 'MTI6', '!!!!', btoa('12:tsk_nothex'), 5, null]) assertRpcError(await listTasks(door.url, { pageToken: bad }), -32602, refusal);
});

test('statusTimestampAfter keeps the tasks at or after it, in any offset; a task its own timestamp includes', async () => {
  const all = resultOf(await listTasks(door.url)).tasks;
  const pivot = all[3];
  const at = Date.parse(pivot.status.timestamp);
  const expected = all.filter((t: { status: { timestamp: string } }) => Date.parse(t.status.timestamp) >= at).map((t: { id: string }) => t.id);
  const ids = async (cutoff: unknown) => resultOf(await listTasks(door.url, { statusTimestampAfter: cutoff })).tasks.map((t: { id: string }) => t.id);

  assert.ok((await ids(pivot.status.timestamp)).includes(pivot.id), "a cutoff copied from a task's timestamp includes that task");
  assert.deepEqual(await ids(pivot.status.timestamp), expected);
  assert.deepEqual(await ids(withOffset(at, 120)), expected, 'the same instant at +02:00');
  assert.deepEqual(await ids(withOffset(at, -330)), expected, 'the same instant at -05:30');
  const justAfter = `${pivot.status.timestamp.slice(0, -1)}001Z`;
  assert.ok(!(await ids(justAfter)).includes(pivot.id), 'a microsecond later excludes it');
  const page = resultOf(await listTasks(door.url, { statusTimestampAfter: pivot.status.timestamp, pageSize: 1 }));
  assert.equal(page.totalSize, expected.length, 'totalSize counts the filtered tasks');
  assert.equal((await ids(null)).length, 6, 'null is every task');
  assert.equal((await ids('2000-01-01T00:00:00Z')).length, 6);
  assert.deepEqual(await ids('2999-01-01T00:00:00+02:00'), []);
  for (const bad of [
    'yesterday',
    '2026-10-13',
    '2026-10-13T09:00:00',
    '2026-02-30T09:00:00Z',
    '2026-10-13T25:00:00Z',
    '2026-10-13T09:00:00+2:00',
    1760000000000,
    true,
    {},
  ]) {
    assertRpcError(await listTasks(door.url, { statusTimestampAfter: bad }), -32602, CUTOFF_REFUSAL);
  }
});

function withOffset(epochMs: number, offsetMinutes: number): string {
  const local = new Date(epochMs + offsetMinutes * 60_000).toISOString().slice(0, -1);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

test('includeArtifacts: absent or false lists no artifacts; true lists each task’s artifacts, [] when it has none', async () => {
  for (const params of [{}, { includeArtifacts: false }]) {
    for (const task of resultOf(await listTasks(door.url, params)).tasks) assert.equal(task.artifacts, undefined);
  }
  const withArtifacts = resultOf(await listTasks(door.url, { includeArtifacts: true })).tasks;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON shapes
  const byId = new Map<string, any>(withArtifacts.map((t: { id: string }) => [t.id, t]));
  assert.deepEqual(byId.get(made.b1.id).artifacts, [], 'a failed task has none');
  assert.deepEqual(byId.get(made.b2.id).artifacts, [{ artifactId: 'prompt', name: 'prompt', parts: [{ text: 'Which branch?', mediaType: 'text/plain' }] }]);
  assert.deepEqual(byId.get(made.a2.id).artifacts, [{ artifactId: 'response', name: 'response', parts: [{ text: 'a2', mediaType: 'text/plain' }] }]);
  for (const task of withArtifacts) {
    const got = resultOf(await getTask(door.url, task.id));
    assert.deepEqual(task, { ...got, artifacts: got.artifacts ?? [] });
  }
  for (const bad of ['true', 1, null]) assertRpcError(await listTasks(door.url, { includeArtifacts: bad }), -32602, /includeArtifacts/);
});

test('historyLength is ignored, and so are unknown members', async () => {
  const plain = resultOf(await listTasks(door.url));
  assert.deepEqual(resultOf(await listTasks(door.url, { historyLength: 2 })), plain);
  assert.deepEqual(resultOf(await listTasks(door.url, { historyLength: 'lots' })), plain);
  assert.deepEqual(resultOf(await listTasks(door.url, { sortOrder: 'asc', filter: { any: 1 }, tenant: '' })), plain);
});

test('the first refused parameter answers, naming it', async () => {
  const cases: [Record<string, unknown>, RegExp | string][] = [
    [{ contextId: 1, status: 'nope', pageSize: 0, pageToken: 'x', statusTimestampAfter: 'x', includeArtifacts: 'x' }, /contextId/],
    [{ status: 'nope', pageSize: 0, pageToken: 'x', statusTimestampAfter: 'x', includeArtifacts: 'x' }, /status/],
    [{ pageSize: 0, pageToken: 'x', statusTimestampAfter: 'x', includeArtifacts: 'x' }, /pageSize/],
    [{ pageToken: 'x', statusTimestampAfter: 'x', includeArtifacts: 'x' }, /pageToken/],
    [{ statusTimestampAfter: 'x', includeArtifacts: 'x' }, CUTOFF_REFUSAL],
    [{ includeArtifacts: 'x', historyLength: 'x' }, /includeArtifacts/],
  ];
  for (const [params, names] of cases) assertRpcError(await listTasks(door.url, params), -32602, names);
});

test('a task moves to the front each time its state changes', async () => {
  const x = taskOf(await send(door.url, 'say x'));
  const y = taskOf(await send(door.url, 'say y'));
  let ids = resultOf(await listTasks(door.url, { pageSize: 3 })).tasks.map((t: { id: string }) => t.id);
  assert.deepEqual(ids, [y.id, x.id, made.b2.id]);
  const done = taskOf(await send(door.url, 'main', { taskId: made.b2.id }));
  assert.equal(done.status.state, 'TASK_STATE_COMPLETED');
  ids = resultOf(await listTasks(door.url, { pageSize: 3 })).tasks.map((t: { id: string }) => t.id);
  assert.deepEqual(ids, [made.b2.id, y.id, x.id]);
  const timestamps = resultOf(await listTasks(door.url)).tasks.map((t: { status: { timestamp: string } }) => Date.parse(t.status.timestamp));
  assert.deepEqual(
    timestamps,
    [...timestamps].sort((p, q) => q - p),
    'most recently changed first',
  );
});

test('a walk with pageSize 3 returns every task once; totalSize holds on every page; the last page says ""', async () => {
  const started = await Promise.all(Array.from({ length: 20 }, (_, i) => send(door.url, `say w${i}`, {}, { returnImmediately: true })));
  for (const answer of started) await waitForState(door.url, taskOf(answer).id, 'TASK_STATE_COMPLETED');
  const everyId = (await listAll(door.url, { pageSize: 100 })).map((t) => t.id);
  assert.equal(everyId.length, 28);

  const walked: string[] = [];
  let pageToken = '';
  let pages = 0;
  do {
    const page = resultOf(await listTasks(door.url, { pageSize: 3, pageToken }));
    pages++;
    assert.equal(page.pageSize, 3);
    assert.equal(page.totalSize, 28);
    walked.push(...page.tasks.map((t: { id: string }) => t.id));
    pageToken = page.nextPageToken;
    if (pageToken !== '') assert.equal(page.tasks.length, 3);
  } while (pageToken !== '');
  assert.equal(pages, 10);
  assert.deepEqual(walked, everyId);

  const completed = await listAll(door.url, { status: 'TASK_STATE_COMPLETED', pageSize: 4 });
  const first = resultOf(await listTasks(door.url, { status: 'TASK_STATE_COMPLETED', pageSize: 4 }));
  assert.equal(first.totalSize, completed.length, 'totalSize with a filter counts across every page');
  assert.equal(completed.length, 27);
  assert.equal(new Set(completed.map((t) => t.id)).size, 27);
});

test('a walk while tasks change: every unchanged task once, a changed one moves ahead, a fresh listing shows it first', async () => {
  const deep = taskOf(await send(door.url, 'deploy deep', { contextId: 'walk' }));
  for (let i = 0; i < 6; i++) await send(door.url, `say filler ${i}`, { contextId: 'walk' });
  const front = taskOf(await send(door.url, 'deploy front', { contextId: 'walk' }));
  const before = await listAll(door.url, { contextId: 'walk' });
  assert.equal(before.length, 8);
  assert.equal(before[0].id, front.id);
  assert.equal(before.at(-1).id, deep.id);

  const walked: string[] = [];
  let page = resultOf(await listTasks(door.url, { contextId: 'walk', pageSize: 3 }));
  walked.push(...page.tasks.map((t: { id: string }) => t.id));
  assert.ok(walked.includes(front.id));
  // Both change state mid-walk: the one already walked, and the one still ahead of the cursor.
  assert.equal(taskOf(await send(door.url, 'main', { taskId: front.id })).status.state, 'TASK_STATE_COMPLETED');
  assert.equal(taskOf(await send(door.url, 'main', { taskId: deep.id })).status.state, 'TASK_STATE_COMPLETED');
  while (page.nextPageToken !== '') {
    page = resultOf(await listTasks(door.url, { contextId: 'walk', pageSize: 3, pageToken: page.nextPageToken }));
    assert.equal(page.totalSize, 8);
    walked.push(...page.tasks.map((t: { id: string }) => t.id));
  }
  const unchanged = before.map((t) => t.id).filter((id) => id !== front.id && id !== deep.id);
  for (const id of unchanged) assert.equal(walked.filter((w) => w === id).length, 1, `${id} is walked exactly once`);
  assert.equal(walked.filter((w) => w === front.id).length, 1, 'walked before it changed, and not again');
  assert.equal(walked.filter((w) => w === deep.id).length, 0, 'it moved ahead of the cursor');

  const fresh = resultOf(await listTasks(door.url, { contextId: 'walk' })).tasks.map((t: { id: string }) => t.id);
  assert.deepEqual(fresh.slice(0, 2), [deep.id, front.id]);
  assert.equal(fresh.length, 8);
});

test("a page's cursor is the position it read: a task changing while its page is read never hands the page out again", async () => {
  // The last task of the first page is answered as its page is listed. Its new position is ahead of the cursor;
  // the second page must still start after the first page's tasks.
  for (let i = 0; i < 60; i++) {
    const contextId = `race-${i}`;
    const oldest = taskOf(await send(door.url, 'say oldest', { contextId }));
    const waiting = taskOf(await send(door.url, 'deploy', { contextId }));
    await send(door.url, 'say x', { contextId });
    await send(door.url, 'say y', { contextId });
    const [listed, replied] = await Promise.all([listTasks(door.url, { contextId, pageSize: 3 }), send(door.url, 'main', { taskId: waiting.id })]);
    assert.equal(taskOf(replied).status.state, 'TASK_STATE_COMPLETED');
    const first = resultOf(listed);
    assert.notEqual(first.nextPageToken, '');
    const second = resultOf(await listTasks(door.url, { contextId, pageSize: 3, pageToken: first.nextPageToken }));
    assert.deepEqual(
      second.tasks.map((t: { id: string }) => t.id),
      [oldest.id],
      `round ${i}: the second page holds only what the first did not`,
    );
  }
});
