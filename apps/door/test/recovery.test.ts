/** A crashed session reopened with --resume (DESIGN "The door": settled FAILED on reopen), and launches refused with exit code 2. */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { assertStatusMessage, resultOf, taskOf } from './support/assertions.js';
import { type DoorProcess, makeCapsule, runDoor, tempDir } from './support/door-process.js';
import { send, waitForState } from './support/rpc.js';
import { getTask, lifecycleManifest, listAll, listTasks, readTrace, runMur, taskInContext, UTC_MS } from './support/tasks.js';

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
  - match: '^say (.*)$'
    turns:
      - answer: "{{match.1}}"
default:
  turns:
    - answer: no rule
`;

/** SETTLED_ON_REOPEN in src/tasks/task-store.ts. */
const SETTLED = 'the session ended before this task did; settled when its records were reopened';

describe('kill -9 mid-task, then mur run --resume', () => {
  const doors: DoorProcess[] = [];
  after(() => Promise.all(doors.map((d) => d.stop('SIGKILL'))));

  test('live tasks are settled FAILED on reopen; ended ones are unchanged; ListTasks shows them all', async () => {
    const home = tempDir('home');
    const capsule = makeCapsule(lifecycleManifest({ acceptance: 'queue' }), SCRIPT, { 'task.md': 'say from the task file\n' });
    const first = await runDoor(capsule, [], home);
    doors.push(first);
    assert.ok(first.launchTaskId, 'task.md is the launch task');
    const launched = await waitForState(first.url, first.launchTaskId, 'TASK_STATE_COMPLETED');
    assert.equal(launched.artifacts[0].parts[0].text, 'from the task file');
    const completed = taskOf(await send(first.url, 'say kept'));
    const asked = taskOf(await send(first.url, 'deploy'));
    assert.equal(asked.status.state, 'TASK_STATE_INPUT_REQUIRED');
    void send(first.url, 'nap', { contextId: 'crash-working' }).catch(() => undefined);
    const working = await taskInContext(first.url, 'crash-working', 'TASK_STATE_WORKING');
    const queued = taskOf(await send(first.url, 'say never', {}, { returnImmediately: true }));
    assert.equal(resultOf(await getTask(first.url, queued.id)).status.state, 'TASK_STATE_SUBMITTED');
    const beforeCrash = await listAll(first.url);

    assert.deepEqual(await first.stop('SIGKILL'), { code: null, signal: 'SIGKILL' });
    const killedAt = Date.now();

    const second = await runDoor(capsule, ['--resume', first.sessionId], home);
    doors.push(second);
    assert.equal(second.sessionId, first.sessionId);
    assert.equal(second.recordsDir, first.recordsDir);
    assert.equal(second.launchTaskId, null, 'a resumed launch does not run task.md again');

    for (const live of [asked, working, queued]) {
      const task = resultOf(await getTask(second.url, live.id));
      assert.equal(task.status.state, 'TASK_STATE_FAILED', `${live.id} was live`);
      assertStatusMessage(task, SETTLED);
      assert.match(task.status.timestamp, UTC_MS);
      assert.ok(Date.parse(task.status.timestamp) >= killedAt - 5, 'settled when the records were reopened');
      assert.equal(task.artifacts, undefined, 'the prompt of a task no longer waiting is gone');
    }
    assert.deepEqual(resultOf(await getTask(second.url, completed.id)), completed, 'an ended task is unchanged');
    assert.deepEqual(resultOf(await getTask(second.url, launched.id)), launched);

    const listed = resultOf(await listTasks(second.url));
    assert.equal(listed.totalSize, 5);
    assert.deepEqual(new Set(listed.tasks.map((t: { id: string }) => t.id)), new Set(beforeCrash.map((t) => t.id)));
    assert.deepEqual(
      listed.tasks.slice(3).map((t: { id: string }) => t.id),
      [completed.id, launched.id],
      'the settled ones changed last, so they list first',
    );

    const trace = readTrace(second.recordsDir);
    const settled = trace.filter((r) => r.type === 'task_settled_on_reopen');
    assert.deepEqual(new Set(settled.map((r) => r.task_id)), new Set([asked.id, working.id, queued.id]));
    for (const record of settled) assert.equal(record.state, 'TASK_STATE_FAILED');
    const resumedStart = trace.filter((r) => r.type === 'session_start').at(-1);
    assert.equal(resumedStart?.resumed, true);

    const fresh = taskOf(await send(second.url, 'say after'));
    assert.equal(fresh.status.state, 'TASK_STATE_COMPLETED', 'the resumed door serves new tasks');
    assert.equal(resultOf(await listTasks(second.url, { pageSize: 1 })).tasks[0].id, fresh.id);
    await waitForState(second.url, fresh.id, 'TASK_STATE_COMPLETED');

    // A clean stop, then another resume: nothing left live, so nothing more is settled.
    assert.deepEqual(await second.stop(), { code: 0, signal: null });
    const third = await runDoor(capsule, ['--resume', first.sessionId], home);
    doors.push(third);
    assert.equal(resultOf(await listTasks(third.url)).totalSize, 6);
    assert.equal(readTrace(third.recordsDir).filter((r) => r.type === 'task_settled_on_reopen').length, 3);
  });

  test('--resume of a session with no records exits 2 and says so', async () => {
    const capsule = makeCapsule(lifecycleManifest(), SCRIPT);
    const unknown = 'ses_0123456789abcdef0123456789abcdef';
    const [missing, malformed] = await Promise.all([
      runMur(['run', capsule, '--json', '--resume', unknown]),
      runMur(['run', capsule, '--json', '--resume', 'yesterday']),
    ]);
    assert.equal(missing.code, 2);
    assert.equal(missing.stdout, '');
    assert.match(missing.stderr, new RegExp(`^mur: no records of session ${unknown} for `));
    assert.equal(malformed.code, 2);
    assert.match(malformed.stderr, /--resume takes a session id such as ses_0193…, not 'yesterday'/);
  });
});

describe('a manifest mur run refuses', { concurrency: true }, () => {
  // Each refusal in the one config format (docs/cli.md, "What a refusal names"): the file, then the key path, the value
  // found and what is allowed there.
  const cases: [string, string, string][] = [
    [
      'an unknown top-level key',
      `${lifecycleManifest()}colour: blue\n`,
      '(top level): found unknown key "colour"; allowed: the keys name, version, description, artifacts, lifecycle, inference, hooks, spend, control, capabilities, exports, context, network',
    ],
    [
      'an unknown nested key',
      lifecycleManifest().replace('  task_acceptance: queue', '  task_acceptance: queue\n  after_tusk: exit'),
      'lifecycle: found unknown key "after_tusk"; allowed: the keys task_acceptance, conversation, after_task, shell_grace_secs, deadline_notice_secs, delegation_deadline_secs, input_timeout_secs, max_task_reopens, keep_working, done_check',
    ],
    [
      'a value outside an enum',
      lifecycleManifest().replace('task_acceptance: queue', 'task_acceptance: many'),
      'lifecycle.task_acceptance: found "many"; allowed: one of "single", "queue", "none"',
    ],
    [
      'an A2A 0.3 scope name',
      `${lifecycleManifest()}network:\n  authentication:\n    scheme: bearer\n    credentials:\n      ci:\n        scopes: [GetTask, message/send]\n`,
      'network.authentication.credentials.ci.scopes[1]: found "message/send" (an A2A 0.3 scope name; this runtime speaks A2A v1.0); allowed: its A2A v1.0 name "SendMessage"',
    ],
  ];
  for (const [what, manifest, line] of cases) {
    test(`${what}: exit 2, and stderr names the file, the key path, the value and what is allowed`, async () => {
      const capsule = makeCapsule(manifest, SCRIPT);
      const home = tempDir('home');
      const result = await runMur(['run', capsule, '--json'], home);
      assert.equal(result.code, 2, result.stderr);
      assert.equal(result.stdout, '', 'nothing is announced');
      assert.equal(result.stderr, `mur: ${path.join(capsule, 'murmur.yaml')}:\n  ${line}\n`);
    });
  }
});
