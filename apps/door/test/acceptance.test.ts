/** lifecycle.task_acceptance single and queue, and a closing door (seed 000: "Continuing a task", "Answers", "Task states"). */
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { assertStatusMessage, resultOf, taskOf } from './support/assertions.js';
import { type DoorProcess, makeCapsule, runDoor } from './support/door-process.js';
import { rpc, send, waitFor, waitForState } from './support/rpc.js';
import { cancelTask, getTask, lifecycleManifest, listTasks, readTrace, sendMessage, taskInContext, UTC_MS } from './support/tasks.js';

const SCRIPT = `
rules:
  - match: '^nap'
    turns:
      - sleep_ms: 30000
        answer: rested
  - match: '^deploy'
    turns:
      - ask: Which branch?
      - answer: "deployed {{reply}}"
  - match: '^record (\\w+)'
    turns:
      - tools:
          - tool: bash
            input: { command: "echo start-{{match.1}} >> order.txt; sleep 0.05; echo end-{{match.1}} >> order.txt" }
        answer: "recorded {{match.1}}"
  - match: '^quick (\\d+)'
    turns:
      - answer: "done {{match.1}}"
default:
  turns:
    - answer: no rule
`;

describe('single', () => {
  let door: DoorProcess;
  before(async () => {
    door = await runDoor(makeCapsule(lifecycleManifest({ acceptance: 'single' }), SCRIPT));
  });
  after(() => door.stop());

  test('a second task while one is live is answered REJECTED at once, whatever returnImmediately says', async () => {
    const live = taskOf(await send(door.url, 'nap now', {}, { returnImmediately: true }));
    await waitForState(door.url, live.id, 'TASK_STATE_WORKING');
    for (const config of [undefined, { returnImmediately: false }, { returnImmediately: true }]) {
      const began = Date.now();
      const rejected = taskOf(await send(door.url, 'quick 1', {}, config));
      assert.ok(Date.now() - began < 2000, 'answered at once, not held');
      assert.equal(rejected.status.state, 'TASK_STATE_REJECTED');
      assertStatusMessage(rejected, 'task rejected: capsule is busy');
      assert.match(rejected.status.timestamp, UTC_MS);
      assert.equal(rejected.artifacts, undefined);
      assert.deepEqual(resultOf(await getTask(door.url, rejected.id)), rejected, 'the rejected task is held like any other');
    }
    assert.equal(resultOf(await getTask(door.url, live.id)).status.state, 'TASK_STATE_WORKING', 'the live task is untouched');
    await cancelTask(door.url, live.id);
    assert.equal(taskOf(await send(door.url, 'quick 2')).status.state, 'TASK_STATE_COMPLETED', 'room again once it ended');
    assert.equal(readTrace(door.recordsDir).filter((r) => r.type === 'task_rejected').length, 3);
  });

  test('concurrent messages to an idle capsule: exactly one is taken, every other one is REJECTED busy', async () => {
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(Array.from({ length: 6 }, () => send(door.url, 'nap together', {}, { returnImmediately: true })));
      const tasks = answers.map(taskOf);
      const taken = tasks.filter((t) => t.status.state !== 'TASK_STATE_REJECTED');
      assert.equal(taken.length, 1, tasks.map((t) => t.status.state).join(', '));
      for (const t of tasks.filter((t) => t.status.state === 'TASK_STATE_REJECTED')) assertStatusMessage(t, 'task rejected: capsule is busy');
      await waitForState(door.url, taken[0].id, 'TASK_STATE_WORKING');
      assert.equal(resultOf(await cancelTask(door.url, taken[0].id)).status.state, 'TASK_STATE_CANCELED');
    }
  });

  test('a task waiting in INPUT_REQUIRED keeps the capsule busy; its reply is taken without consulting capacity', async () => {
    const asked = taskOf(await send(door.url, 'deploy it'));
    assert.equal(asked.status.state, 'TASK_STATE_INPUT_REQUIRED');
    const rejected = taskOf(await send(door.url, 'quick 3'));
    assert.equal(rejected.status.state, 'TASK_STATE_REJECTED');
    assertStatusMessage(rejected, 'task rejected: capsule is busy');
    const done = taskOf(await sendMessage(door.url, 'main', { taskId: asked.id }));
    assert.equal(done.status.state, 'TASK_STATE_COMPLETED');
    assert.equal(done.artifacts[0].parts[0].text, 'deployed main');
    assert.equal(taskOf(await send(door.url, 'quick 4')).status.state, 'TASK_STATE_COMPLETED');
  });
});

describe('queue', () => {
  let door: DoorProcess;
  before(async () => {
    door = await runDoor(makeCapsule(lifecycleManifest({ acceptance: 'queue' }), SCRIPT));
  });
  after(() => door.stop());

  test('queued tasks run one at a time, in the order they were accepted', async () => {
    const order = path.join(door.recordsDir, 'work', 'order.txt');
    rmSync(order, { force: true });
    const names = ['a', 'b', 'c', 'd', 'e'];
    const ids: string[] = [];
    for (const name of names) {
      const task = taskOf(await send(door.url, `record ${name}`, {}, { returnImmediately: true }));
      assert.equal(task.status.state, 'TASK_STATE_SUBMITTED');
      ids.push(task.id);
    }
    for (const id of ids) await waitForState(door.url, id, 'TASK_STATE_COMPLETED');
    assert.deepEqual(
      readFileSync(order, 'utf8').trim().split('\n'),
      names.flatMap((n) => [`start-${n}`, `end-${n}`]),
    );
  });

  test('20 concurrent blocking SendMessages all complete, each with its own answer', async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => send(door.url, `quick ${i}`)));
    const tasks = answers.map(taskOf);
    assert.equal(new Set(tasks.map((t) => t.id)).size, 20);
    for (const [i, task] of tasks.entries()) {
      assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
      assert.equal(task.artifacts[0].parts[0].text, `done ${i}`);
    }
  });

  test('a queued task canceled before it starts says so, and its held request answers CANCELED', async () => {
    const running = taskOf(await send(door.url, 'nap first', {}, { returnImmediately: true }));
    await waitForState(door.url, running.id, 'TASK_STATE_WORKING');
    const held = send(door.url, 'quick 99', { contextId: 'queued-ctx' });
    const queued = (await taskInContext(door.url, 'queued-ctx', 'TASK_STATE_SUBMITTED')).id;
    const canceled = resultOf(await cancelTask(door.url, queued));
    assert.equal(canceled.status.state, 'TASK_STATE_CANCELED');
    assertStatusMessage(canceled, 'task canceled before it started');
    const answered = taskOf(await held);
    assert.deepEqual(answered, canceled);
    await cancelTask(door.url, running.id);
    assert.equal(taskOf(await send(door.url, 'quick 100')).status.state, 'TASK_STATE_COMPLETED');
    assert.equal(
      readTrace(door.recordsDir).filter((r) => r.type === 'inference' && r.task_id === queued).length,
      0,
      'the canceled queued task never reached the model',
    );
    assert.equal(resultOf(await getTask(door.url, queued)).status.state, 'TASK_STATE_CANCELED');
  });
});

describe('queue limit', () => {
  let door: DoorProcess;
  before(async () => {
    door = await runDoor(makeCapsule(lifecycleManifest({ acceptance: 'queue' }), SCRIPT));
  });
  after(() => door.stop());

  // QUEUE_LIMIT in src/tasks/task-service.ts, documented in docs/manifest.md (lifecycle.task_acceptance).
  test('1,000 tasks wait in TASK_STATE_SUBMITTED; the next one is rejected busy; StopSession cancels them all', async () => {
    const running = taskOf(await send(door.url, 'nap while the queue fills', {}, { returnImmediately: true }));
    await waitForState(door.url, running.id, 'TASK_STATE_WORKING');
    for (let batch = 0; batch < 10; batch++) {
      const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => send(door.url, `quick ${batch * 100 + i}`, {}, { returnImmediately: true })));
      for (const answer of answers) assert.equal(taskOf(answer).status.state, 'TASK_STATE_SUBMITTED');
    }
    const over = taskOf(await send(door.url, 'quick over the limit', {}, { returnImmediately: true }));
    assert.equal(over.status.state, 'TASK_STATE_REJECTED');
    assertStatusMessage(over, 'task rejected: capsule is busy');
    const stopped = await rpc(door.url, 'murmur.StopSession', {});
    assert.equal(resultOf(stopped).canceled.length, 1001, 'the running task and the 1,000 queued ones');
    const listed = resultOf(await listTasks(door.url, { status: 'TASK_STATE_SUBMITTED' }));
    assert.equal(listed.totalSize, 0);
  });
});

describe('a closing door', () => {
  test('SIGTERM answers every held request with its task as it stands, then exits 0', async () => {
    const door = await runDoor(makeCapsule(lifecycleManifest({ acceptance: 'queue' }), SCRIPT));
    try {
      const working = send(door.url, 'nap long', { contextId: 'closing-working' });
      const workingId = (await taskInContext(door.url, 'closing-working', 'TASK_STATE_WORKING')).id;
      const queued = send(door.url, 'quick 5', { contextId: 'closing-queued' });
      await taskInContext(door.url, 'closing-queued', 'TASK_STATE_SUBMITTED');
      const more = Array.from({ length: 30 }, (_, i) => send(door.url, `quick ${i}`, { contextId: 'closing-more' }));
      await waitFor(async () => {
        const page = resultOf(await listTasks(door.url, { contextId: 'closing-more' }));
        return page.totalSize === 30 ? true : undefined;
      }, 'the queue to fill');
      const exit = door.stop('SIGTERM');
      // While it closes, a new message is answered REJECTED at once; then the door stops listening. Four clients
      // send one message after another until the door is gone.
      const senders = await Promise.all(
        Array.from({ length: 4 }, async () => {
          const answers: string[] = [];
          for (;;) {
            try {
              const late = taskOf(await send(door.url, 'quick late', {}, { returnImmediately: true }));
              answers.push(`${late.status.state}: ${late.status.message?.parts[0].text}`);
            } catch {
              return answers;
            }
          }
        }),
      );
      // A message the door took before it noticed the signal was admitted (and canceled when the door closed,
      // even one whose row was still being written as the close began); every one after was rejected.
      const closingAnswer = 'TASK_STATE_REJECTED: task rejected: the session is closing';
      const admitted = ['TASK_STATE_SUBMITTED: undefined', 'TASK_STATE_CANCELED: task canceled before it started'];
      const lateAnswers = senders.flat();
      assert.ok(lateAnswers.includes(closingAnswer), `some message reached the closing door: ${lateAnswers.join('; ')}`);
      for (const answers of senders) {
        const firstRejected = answers.includes(closingAnswer) ? answers.indexOf(closingAnswer) : answers.length;
        assert.ok(
          answers.slice(0, firstRejected).every((a) => admitted.includes(a)),
          answers.join('; '),
        );
        assert.ok(
          answers.slice(firstRejected).every((a) => a === closingAnswer),
          answers.join('; '),
        );
      }
      for (const answer of await Promise.all(more)) {
        const task = taskOf(answer);
        assert.equal(task.status.state, 'TASK_STATE_CANCELED');
        assertStatusMessage(task, 'task canceled before it started');
      }
      const [w, q] = (await Promise.all([working, queued])).map(taskOf);
      assert.equal(w.id, workingId);
      assert.equal(w.status.state, 'TASK_STATE_CANCELED');
      assertStatusMessage(w, 'task canceled');
      assert.equal(q.status.state, 'TASK_STATE_CANCELED');
      assertStatusMessage(q, 'task canceled before it started');
      assert.deepEqual(await exit, { code: 0, signal: null });
      const types = readTrace(door.recordsDir).map((r) => r.type);
      assert.equal(types.at(-1), 'session_end');
      // A clean close leaves no task live: reopening the records settles nothing.
      const reopened = await runDoor(door.capsuleDir, ['--resume', door.sessionId], door.home);
      try {
        assert.equal(resultOf(await listTasks(reopened.url, { status: 'TASK_STATE_FAILED' })).totalSize, 0);
        assert.equal(readTrace(reopened.recordsDir).filter((r) => r.type === 'task_settled_on_reopen').length, 0);
        // Every answered message's task is on record (one whose answer the closing door cut off may be too).
        assert.ok(resultOf(await listTasks(reopened.url)).totalSize >= 32 + lateAnswers.length);
      } finally {
        await reopened.stop();
      }
    } finally {
      await door.stop('SIGKILL');
    }
  });
});
