/**
 * `--json` on the client commands that stream or act (issue 15): mur watch prints one JSON object per event, mur
 * cancel and mur stop one object each, with the shapes and exit codes docs/cli.md documents. Each is parsed here.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { ResidueItem, StreamResponse, Task } from '@murmur/protocol';
import { BACKGROUND_SCRIPT, backgroundWorkId, manifest, runMur, spawnMur, until } from './support/client-cli.js';
import { type DoorProcess, makeCapsule, runDoor } from './support/door-process.js';
import { send, waitForState } from './support/rpc.js';

interface WatchLine {
  event: string;
  id: string | null;
  taskId: string | null;
  frame: string | null;
  result: StreamResponse;
  lastEventId?: string | null;
}

const parseLines = (stdout: string): WatchLine[] =>
  stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as WatchLine);

describe('--json on mur watch, cancel and stop', () => {
  const doors: DoorProcess[] = [];
  after(() => Promise.all(doors.map((d) => d.stop('SIGKILL'))));

  test('mur cancel --json: {sessionId, task, residue}, exit 0; a refusal still exits 1 in words on stderr', async () => {
    const door = await runDoor(makeCapsule(manifest({ name: 'cancel-json', lifecycle: ['shell_grace_secs: 1'] }), BACKGROUND_SCRIPT));
    doors.push(door);
    const task = (await send(door.url, 'bg', {}, { returnImmediately: true })).json.result.task.id as string;
    const workId = await until(() => backgroundWorkId(door.recordsDir, task), 'the command to move to the background');
    const result = await runMur(['cancel', task, '--json'], door.home);
    assert.equal(result.code, 0, result.stderr);
    const body = JSON.parse(result.stdout) as { sessionId: string; task: Task; residue: ResidueItem[] };
    assert.equal(body.sessionId, door.sessionId);
    assert.equal(body.task.id, task);
    assert.equal(body.task.status.state, 'TASK_STATE_CANCELED');
    assert.deepEqual(
      body.residue.map((item) => item.kind === 'detached_shell' && item.work_id),
      [workId],
    );
    const again = await runMur(['cancel', task, '--json'], door.home);
    assert.equal(again.code, 1);
    assert.equal(again.stdout, '');
    assert.match(again.stderr, /^mur: Task cannot be canceled/);
  });

  test('mur watch --json: one StreamResponse per line, ending with capsule-closed and exit 0', async () => {
    const door = await runDoor(makeCapsule(manifest({ name: 'watch-json' }), BACKGROUND_SCRIPT));
    doors.push(door);
    const watcher = spawnMur(['watch', '--json'], door.home);
    await watcher.waitFor(/connection-ack/, 'the connection-ack line');
    const task = (await send(door.url, 'nap', {}, { returnImmediately: true })).json.result.task.id as string;
    await waitForState(door.url, task, 'TASK_STATE_WORKING');
    await watcher.waitFor(new RegExp(`"taskId":"${task}"`), 'a line of the task');
    await door.stop('SIGTERM');
    const result = await watcher.exited;
    assert.equal(result.code, 0, result.stderr);
    const lines = parseLines(result.stdout);
    assert.equal(lines[0].event, 'frame');
    assert.equal(lines[0].frame, 'connection-ack');
    assert.ok('message' in lines[0].result);
    assert.deepEqual(lines.at(-1) && [lines.at(-1)?.event, lines.at(-1)?.frame], ['frame', 'capsule-closed']);
    const ofTask = lines.filter((line) => line.taskId === task);
    assert.ok(ofTask.length >= 2, result.stdout);
    for (const line of ofTask) {
      assert.ok(['status', 'artifact', 'frame'].includes(line.event));
      assert.ok('statusUpdate' in line.result || 'artifactUpdate' in line.result);
    }
    assert.ok(
      ofTask.some((line) => line.event === 'status' && 'statusUpdate' in line.result && line.result.statusUpdate.status.state === 'TASK_STATE_WORKING'),
    );
  });

  test('mur watch --json: a lost connection ends with {"event":"lost"} and exit 1', async () => {
    const door = await runDoor(makeCapsule(manifest({ name: 'watch-lost' }), BACKGROUND_SCRIPT));
    doors.push(door);
    const watcher = spawnMur(['watch', '--json'], door.home);
    await watcher.waitFor(/connection-ack/, 'the connection-ack line');
    await door.stop('SIGKILL');
    const result = await watcher.exited;
    assert.equal(result.code, 1);
    const last = parseLines(result.stdout).at(-1);
    assert.deepEqual(last, { event: 'lost', lastEventId: null });
    assert.match(result.stderr, /E-IO-003/);
  });

  test('mur stop --json: {sessionId, pid, canceled, residue, stopped}, once the process exited', async () => {
    const door = await runDoor(makeCapsule(manifest({ name: 'stop-json', lifecycle: ['shell_grace_secs: 1'] }), BACKGROUND_SCRIPT));
    doors.push(door);
    const task = (await send(door.url, 'nap', {}, { returnImmediately: true })).json.result.task.id as string;
    await waitForState(door.url, task, 'TASK_STATE_WORKING');
    const result = await runMur(['stop', '--json'], door.home);
    assert.equal(result.code, 0, result.stderr);
    const body = JSON.parse(result.stdout) as { sessionId: string; pid: number; canceled: string[]; residue: ResidueItem[]; stopped: boolean };
    assert.deepEqual(body, { sessionId: door.sessionId, pid: door.pid, canceled: [task], residue: [], stopped: true });
    assert.deepEqual(await door.exited, { code: 0, signal: null });
  });
});
