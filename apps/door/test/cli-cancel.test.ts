/**
 * `mur cancel` end to end (seed 000, "CancelTask", "Residue items": mur cancel prints a detached_shell item as
 * `running:`): the task's final state, its residue, -32002 and -32001 in plain words, and finding the session.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BACKGROUND_SCRIPT, backgroundWorkId, manifest, runMur, until } from './support/client-cli.js';
import { type DoorProcess, makeCapsule, runDoor, tempDir } from './support/door-process.js';
import { rpc, send, waitForState } from './support/rpc.js';

const UNKNOWN = 'tsk_0190eeeeeeeeeeeeeeeeeeeeeeeeeeee';

describe('mur cancel', () => {
  const home = tempDir('home');
  let shells: DoorProcess;
  let other: DoorProcess;
  before(async () => {
    [shells, other] = await Promise.all([
      runDoor(makeCapsule(manifest({ name: 'shells', lifecycle: ['shell_grace_secs: 1'] }), BACKGROUND_SCRIPT), [], home),
      runDoor(makeCapsule(manifest({ name: 'other' }), BACKGROUND_SCRIPT), [], home),
    ]);
  });
  after(() => Promise.all([shells?.stop(), other?.stop()]));

  test('finds the session that holds the task, cancels it, and prints its state and each residue item', async () => {
    const task = (await send(shells.url, 'bg', {}, { returnImmediately: true })).json.result.task.id as string;
    const workId = await until(() => backgroundWorkId(shells.recordsDir, task), 'the command to move to the background');
    assert.match(workId, /^wrk_/);

    // Two sessions run on this host: mur cancel asks each with GetTask.
    const result = await runMur(['cancel', task], home);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, `${task} canceled: task canceled\nrunning: bash sleep 30 (work_id ${workId})\n`);
    assert.equal(result.stderr, '');
    assert.equal((await rpc(shells.url, 'GetTask', { id: task })).json.result.status.state, 'TASK_STATE_CANCELED');

    // -32002: the door's own message, exit 1.
    const again = await runMur(['cancel', task, '--session', shells.sessionId], home);
    assert.equal(again.code, 1);
    assert.equal(again.stdout, '');
    assert.equal(again.stderr, 'mur: Task cannot be canceled: it is already TASK_STATE_CANCELED\n');
  });

  test('a task with nothing left running prints its state alone; --session takes an id prefix', async () => {
    const task = (await send(other.url, 'nap', {}, { returnImmediately: true })).json.result.task.id as string;
    await waitForState(other.url, task, 'TASK_STATE_WORKING');
    const result = await runMur(['cancel', task, '--session', other.sessionId.slice(0, 24)], home);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, `${task} canceled: task canceled\n`);
  });

  test('-32001 and a task no session holds: exit 1 in plain words; bad usage exits 2', async () => {
    const missing = await runMur(['cancel', UNKNOWN, '--session', shells.sessionId], home);
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr, `mur: no task ${UNKNOWN} in session ${shells.sessionId}\n`);
    const nowhere = await runMur(['cancel', UNKNOWN], home);
    assert.equal(nowhere.code, 1);
    assert.equal(nowhere.stderr, `mur: no task ${UNKNOWN} in any of the 2 running sessions asked\n`);
    const none = await runMur(['cancel'], home);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /usage: mur cancel TASK/);
    const badFlag = await runMur(['cancel', UNKNOWN, '--force'], home);
    assert.equal(badFlag.code, 2);
    const noSession = await runMur(['cancel', UNKNOWN, '--session', 'ses_nope'], home);
    assert.equal(noSession.code, 2);
    assert.match(noSession.stderr, /no running session is ses_nope/);
  });
});
