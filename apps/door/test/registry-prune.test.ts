/**
 * Stale registry entries (docs/cli.md, "Stale registry entries"; issue 29): no entry outlives its process after the
 * next `mur` command. A SIGKILLed supervisor's formations/<name>-<pid>.json and a SIGKILLed member's session entry are
 * listed once by `mur ps` and removed; a formation that stops cleanly removes its SIGKILLed member's entry itself; a
 * command other than ps removes them before it runs; an entry whose process still runs is never touched.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { deadPid, manifest, pidExists, registerFake, runMur, sleeper, until } from './support/client-cli.js';
import { type DoorProcess, makeCapsule, runDoor, tempDir } from './support/door-process.js';
import { makeFormation, memberManifest, runFormation } from './support/formation.js';

const ANSWER = 'default:\n  turns:\n    - answer: "done: {{task.text}}"\n';
const ROSTER =
  'name: duo\nentry: planner\nmembers:\n  planner: { capsule: ./planner }\n  worker: { capsule: ./worker }\nrules:\n  - from: planner\n    to: [worker]\n';

const duo = () =>
  makeFormation(ROSTER, {
    planner: { manifest: memberManifest('planner'), script: ANSWER },
    worker: { manifest: memberManifest('worker', { callee: true }), script: ANSWER },
  });

interface PsRow {
  sessionId: string;
  pid: number;
  reachable: boolean;
  reason: string | null;
}

const sessionFile = (home: string, id: string) => path.join(home, 'sessions', `${id}.json`);

describe('a SIGKILLed supervisor and member: the next mur ps lists them once and removes their entries', () => {
  const home = tempDir('home');
  let formation: Awaited<ReturnType<typeof runFormation>>;
  let live: DoorProcess;
  after(async () => {
    formation?.mur.kill('SIGKILL');
    for (const m of formation?.members ?? []) if (pidExists(m.pid)) process.kill(m.pid, 'SIGKILL');
    await live?.stop();
  });

  test('formations/<name>-<pid>.json and the killed member’s session entry are gone; a live session’s is untouched', async () => {
    [formation, live] = await Promise.all([runFormation(duo(), home), runDoor(makeCapsule(manifest({ name: 'bystander' }), ANSWER), [], home)]);
    const formationFile = path.join(home, 'formations', `duo-${formation.pid}.json`);
    const liveEntry = readFileSync(sessionFile(home, live.sessionId), 'utf8');
    assert.ok(existsSync(formationFile));
    const worker = formation.member('worker');
    const planner = formation.member('planner');
    process.kill(worker.pid, 'SIGKILL');
    formation.mur.kill('SIGKILL');
    await formation.mur.exited;
    // The planner notices its supervisor gone and stops by itself (its own entry with it); the worker cannot.
    await until(() => (!pidExists(worker.pid) && !pidExists(planner.pid) ? true : undefined), 'the members gone');
    assert.ok(existsSync(formationFile), 'the SIGKILLed supervisor left its formation entry');
    assert.ok(existsSync(sessionFile(home, worker.sessionId)), 'the SIGKILLed member left its session entry');

    const listed = await runMur(['ps', '--json'], home);
    assert.equal(listed.code, 0, listed.stderr);
    const rows = new Map((JSON.parse(listed.stdout) as PsRow[]).map((r) => [r.sessionId, r]));
    assert.deepEqual([...rows.keys()].sort(), [live.sessionId, worker.sessionId].sort());
    assert.equal(rows.get(live.sessionId)?.reachable, true);
    assert.equal(rows.get(worker.sessionId)?.reachable, false);
    assert.equal(rows.get(worker.sessionId)?.reason, `its process ${worker.pid} is gone (a stale record): removed from the registry`);

    assert.equal(existsSync(formationFile), false, 'the formation entry is removed');
    assert.equal(existsSync(sessionFile(home, worker.sessionId)), false, 'the killed member’s entry is removed');
    assert.equal(readFileSync(sessionFile(home, live.sessionId), 'utf8'), liveEntry, 'the live session’s entry is untouched');
    const again = JSON.parse((await runMur(['ps', '--json'], home)).stdout) as PsRow[];
    assert.deepEqual(
      again.map((r) => [r.sessionId, r.reachable]),
      [[live.sessionId, true]],
    );
  });
});

describe('a formation that stops cleanly removes the entry of a member that was SIGKILLed', () => {
  const home = tempDir('home');
  let formation: Awaited<ReturnType<typeof runFormation>>;
  after(() => formation?.mur.kill('SIGKILL'));

  test('no mur command needed: the supervisor removes it when it stops', async () => {
    formation = await runFormation(duo(), home);
    const worker = formation.member('worker');
    process.kill(worker.pid, 'SIGKILL');
    await until(() => (!pidExists(worker.pid) ? true : undefined), 'the worker gone');
    assert.ok(existsSync(sessionFile(home, worker.sessionId)));
    formation.mur.kill('SIGTERM');
    assert.equal((await formation.mur.exited).code, 0);
    assert.equal(existsSync(sessionFile(home, worker.sessionId)), false, 'the killed member’s entry is removed');
    assert.equal(existsSync(sessionFile(home, formation.member('planner').sessionId)), false);
    assert.equal(existsSync(path.join(home, 'formations', `duo-${formation.pid}.json`)), false);
  });
});

describe('every mur command that reads the registry removes stale entries before it runs', () => {
  const home = tempDir('home');
  const GONE = 'ses_0190eeeeeeeeeeeeeeeeeeeeeeeeeeee';
  const ALIVE = 'ses_0190ffffffffffffffffffffffffffff';
  let alive: ChildProcess;
  after(() => alive?.kill('SIGKILL'));

  test('mur watch of no such session exits 2, the dead entries gone, the live one and a foreign file kept', async () => {
    alive = sleeper();
    const gone = await deadPid();
    registerFake(home, { sessionId: GONE, name: 'gone', url: 'http://127.0.0.1:9', pid: gone });
    registerFake(home, { sessionId: ALIVE, name: 'alive', url: 'http://127.0.0.1:9', pid: alive.pid! });
    mkdirSync(path.join(home, 'formations'), { recursive: true });
    const deadFormation = path.join(home, 'formations', `old-${gone}.json`);
    const liveFormation = path.join(home, 'formations', `on-${alive.pid}.json`);
    const entry = (name: string, pid: number) =>
      JSON.stringify({ name, pid, rosterFile: '/x/roster.yaml', entry: 'a', members: [], startedAt: new Date().toISOString() });
    writeFileSync(deadFormation, entry('old', gone));
    writeFileSync(liveFormation, entry('on', alive.pid!));
    // Half-written: not an entry, so not judged, so not removed.
    writeFileSync(sessionFile(home, 'ses_0190half'), '{"sessionId":"ses_0190half","pid":');

    const result = await runMur(['watch', 'ses_0190nosuchsession'], home);
    assert.equal(result.code, 2, result.stderr);
    assert.equal(existsSync(sessionFile(home, GONE)), false);
    assert.equal(existsSync(deadFormation), false);
    assert.ok(existsSync(sessionFile(home, ALIVE)), 'a live process’s entry is kept');
    assert.ok(existsSync(liveFormation), 'a live supervisor’s entry is kept');
    assert.ok(existsSync(sessionFile(home, 'ses_0190half')), 'a file that is not an entry is kept');
  });
});

/** The folders of cgroup `murmur-<session id>` on this host, in every hierarchy (docs/sandbox.md, "Resource limits"). */
function sessionCgroups(sessionId: string): string[] {
  const found = spawnSync('find', ['/sys/fs/cgroup', '-maxdepth', '8', '-type', 'd', '-name', `murmur-${sessionId}`], { encoding: 'utf8' });
  return found.stdout.split('\n').filter(Boolean);
}

describe('a SIGKILLed door leaves its cgroups, and the next mur command removes them with its entry', () => {
  const home = tempDir('home');
  let door: DoorProcess | undefined;
  after(() => door?.child.kill('SIGKILL'));

  test('mur ps lists the session once and removes its entry and its empty cgroups', async (t) => {
    door = await runDoor(makeCapsule(manifest(), ANSWER), [], home);
    const made = sessionCgroups(door.sessionId);
    if (made.length === 0) return t.skip('no cgroup could be made for the session here (not root, no delegated cgroup): docs/sandbox.md');
    door.child.kill('SIGKILL');
    await door.exited;
    assert.deepEqual(sessionCgroups(door.sessionId), made, 'a door killed with SIGKILL cannot remove its cgroups');
    const result = await runMur(['ps', '--json'], home);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(existsSync(sessionFile(home, door.sessionId)), false);
    assert.deepEqual(sessionCgroups(door.sessionId), [], 'the stale session’s cgroups are removed with its entry');
  });
});
