/**
 * `mur stop` end to end (seed 000, "murmur.StopSession": mur stop calls it, then signals the process; "Residue
 * items": a detached_shell item prints as `running:`).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { BACKGROUND_SCRIPT, backgroundWorkId, manifest, runMur, until } from './support/client-cli.js';
import { type DoorProcess, makeCapsule, runDoor, tempDir } from './support/door-process.js';
import { send, waitForState } from './support/rpc.js';

describe('mur stop', () => {
  const doors: DoorProcess[] = [];
  after(() => Promise.all(doors.map((d) => d.stop('SIGKILL'))));

  test('cancels every live task, prints them and the residue, then the door process exits', async () => {
    const door = await runDoor(makeCapsule(manifest({ name: 'stoppable', lifecycle: ['shell_grace_secs: 1'] }), BACKGROUND_SCRIPT));
    doors.push(door);
    const running = (await send(door.url, 'bg', {}, { returnImmediately: true })).json.result.task.id as string;
    const queued = (await send(door.url, 'nap', {}, { returnImmediately: true })).json.result.task.id as string;
    const workId = await until(() => backgroundWorkId(door.recordsDir, running), 'the command to move to the background');
    await waitForState(door.url, queued, 'TASK_STATE_SUBMITTED');

    const result = await runMur(['stop'], door.home);
    assert.equal(result.code, 0, result.stderr);
    const canceled = [running, queued].sort();
    assert.equal(
      result.stdout,
      [
        `canceled ${canceled[0]}`,
        `canceled ${canceled[1]}`,
        `running: bash sleep 30 (work_id ${workId})`,
        `stopped session ${door.sessionId} (stoppable 0.1.0, pid ${door.pid})`,
        '',
      ].join('\n'),
    );
    assert.deepEqual(await door.exited, { code: 0, signal: null });
    // mur run unregistered the session on its way out.
    assert.equal((await runMur(['ps', '--json'], door.home)).stdout, '[]\n');
  });

  test('an authenticated door is stopped with the operator token from tokens.json; nothing live is said plainly', async () => {
    const door = await runDoor(
      makeCapsule(
        manifest({
          name: 'guarded',
          extra: ['network:', '  authentication:', '    scheme: bearer', '    credentials:', '      reader:', '        scopes: [GetTask]'],
        }),
        BACKGROUND_SCRIPT,
      ),
    );
    doors.push(door);
    const refused = await runMur(['stop', '--token', 'mur_wrong'], door.home);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /refused the token \(401 invalid_token\).*; it was not signalled/);
    assert.equal(door.child.exitCode, null, 'a refused stop signals nothing');

    const result = await runMur(['stop', door.sessionId], door.home);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, `no live task to cancel\nstopped session ${door.sessionId} (guarded 0.1.0, pid ${door.pid})\n`);
    assert.deepEqual(await door.exited, { code: 0, signal: null });
  });

  test('no running session, or too many arguments: usage, exit 2', async () => {
    const door = doors[0];
    const none = await runMur(['stop'], door.home);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /no session is running on this host/);
    const many = await runMur(['stop', 'a', 'b'], door.home);
    assert.equal(many.code, 2);
    assert.match(many.stderr, /usage: mur stop/);
  });

  test('a formation whose supervisor is gone and whose pid another process now holds is not signalled', async () => {
    const home = tempDir('home');
    // A pid is reused once its process is gone; the entry says when its supervisor started, and this process did not.
    const bystander = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      const dir = path.join(home, 'formations');
      mkdirSync(dir, { recursive: true });
      const entry = {
        name: 'crashed',
        pid: bystander.pid,
        rosterFile: '/nowhere/roster.yaml',
        entry: 'a',
        members: [],
        startedAt: new Date().toISOString(),
        pidStartTime: '1',
      };
      writeFileSync(path.join(dir, `crashed-${bystander.pid}.json`), JSON.stringify(entry));
      const result = await runMur(['stop', 'crashed'], home);
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, /no running session is crashed/);
      assert.equal(bystander.exitCode, null, 'the bystander was not signalled');
      assert.equal(bystander.signalCode, null);
    } finally {
      bystander.kill('SIGKILL');
    }
  });
});
