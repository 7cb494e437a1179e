/**
 * The bounded task mirror (issue 16): live tasks always in memory, ended ones within a byte budget, older ones read
 * back from SQLite by every method that can name them; and ListTasks answered from one snapshot while tasks are
 * being written (no -32603 from a row in SQLite that the mirror did not hold yet). The mirror's own eviction order is a
 * unit spec beside it (src/tasks/task-cache.spec.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type DoorProcess, makeCapsule, manifestYaml, runDoor } from './support/door-process.js';
import { rpc, send } from './support/rpc.js';

const SCRIPT = `
rules:
  - match: '^ask'
    turns:
      - ask: Which?
      - answer: "got {{reply}}"
default:
  turns:
    - answer: "echo {{task.text}}"
`;

describe('a door whose old tasks fell out of the mirror', () => {
  let door: DoorProcess;
  const big = 'z'.repeat(700_000);
  const ids: string[] = [];
  let asked: string;

  before(async () => {
    door = await runDoor(makeCapsule(manifestYaml({ name: 'cold' }), SCRIPT));
    asked = (await send(door.url, 'ask me')).json.result.task.id;
    assert.equal((await send(door.url, 'x', { taskId: asked })).json.result.task.status.state, 'TASK_STATE_COMPLETED');
    // 14 answers of 700,000 characters are about 19 MiB by the mirror's estimate, past its 8 MiB.
    for (let i = 0; i < 14; i++) ids.push((await send(door.url, `${i} ${big}`)).json.result.task.id);
  });
  after(async () => {
    await door?.stop();
  });

  test('GetTask answers the first task in full, read back from SQLite', async () => {
    const task = (await rpc(door.url, 'GetTask', { id: ids[0] })).json.result;
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    assert.equal(task.artifacts[0].parts[0].text, `echo 0 ${big}`);
  });

  test('CancelTask, SubscribeToTask and a reply to an old ended task are refused with its state', async () => {
    const cancel = await rpc(door.url, 'CancelTask', { id: asked });
    assert.equal(cancel.json.error.code, -32002, cancel.text);
    assert.equal(cancel.json.error.data[0].metadata.state, 'TASK_STATE_COMPLETED');
    const subscribe = await rpc(door.url, 'SubscribeToTask', { id: asked });
    assert.equal(subscribe.json.error.code, -32004, subscribe.text);
    assert.match(subscribe.json.error.message, /has ended in TASK_STATE_COMPLETED/);
    const reply = await send(door.url, 'again', { taskId: asked });
    assert.equal(reply.json.error.code, -32004, reply.text);
  });

  test('a message referencing an old task reads it back for the agent', async () => {
    const answer = await send(door.url, 'see the first', { referenceTaskIds: [asked] });
    assert.match(answer.json.result.task.artifacts[0].parts[0].text, new RegExp(`- ${asked}: completed\\n`));
    assert.match(answer.json.result.task.artifacts[0].parts[0].text, /got x/);
  });

  test('ListTasks walks every task, a page ending early when its text would pass the page budget', async () => {
    const seen: string[] = [];
    let pageToken = '';
    let pages = 0;
    do {
      const page = (await rpc(door.url, 'ListTasks', { pageSize: 100, includeArtifacts: true, pageToken })).json.result;
      for (const task of page.tasks) seen.push(task.id);
      assert.equal(page.totalSize, 16);
      pageToken = page.nextPageToken;
      pages += 1;
    } while (pageToken !== '' && pages < 20);
    assert.equal(new Set(seen).size, 16);
    assert.ok(pages >= 3, `9.8 M characters take several 4 Mi pages, not ${pages}`);
    const lean = (await rpc(door.url, 'ListTasks', { pageSize: 100 })).json.result;
    assert.equal(lean.tasks.length, 16, 'without artifacts the answers are not read, so one page holds all');
  });
});

describe('ListTasks while tasks are being written', () => {
  let door: DoorProcess;
  before(async () => {
    door = await runDoor(makeCapsule(manifestYaml({ name: 'race' }), 'default:\n  turns:\n    - answer: ok\n'));
  });
  after(async () => {
    await door?.stop();
  });

  test('240 pages read beside 240 SendMessage are all answered, each page ordered and whole', async () => {
    const sends: Promise<unknown>[] = [];
    const lists: Promise<Awaited<ReturnType<typeof rpc>>>[] = [];
    for (let i = 0; i < 240; i++) {
      sends.push(send(door.url, `task ${i}`, {}, { returnImmediately: i % 2 === 0 }));
      lists.push(rpc(door.url, 'ListTasks', { pageSize: 10 + (i % 5) }));
    }
    const answers = await Promise.all(lists);
    await Promise.all(sends);
    for (const answer of answers) {
      assert.ok(answer.json.result, `a page, not an error: ${answer.text}`);
      const { tasks, totalSize } = answer.json.result;
      assert.ok(tasks.every((t: { id?: string }) => typeof t.id === 'string'));
      assert.ok(tasks.length <= totalSize);
    }
    assert.equal((await rpc(door.url, 'ListTasks', {})).json.result.totalSize, 240);
  });
});
