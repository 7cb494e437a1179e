/**
 * `mur ps` end to end, and `mur stop` refusing an unreachable session (seed 000, "A card with no supportedInterfaces":
 * mur ps and mur stop list such a capsule as unreachable; the record is kept, never pruned). Only a stale record (its
 * process gone) is removed, once listed (docs/cli.md, "Stale registry entries").
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { deadPid, manifest, registerFake, runMur, sleeper, type TinyServer, tinyServer } from './support/client-cli.js';
import { type DoorProcess, makeCapsule, runDoor, tempDir } from './support/door-process.js';

const SCRIPT = 'rules: []\ndefault:\n  turns:\n    - answer: ok\n';

const OLD_ID = 'ses_0190aaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const STALE_ID = 'ses_0190bbbbbbbbbbbbbbbbbbbbbbbbbbbb';
const SILENT_ID = 'ses_0190cccccccccccccccccccccccccccc';
const IMPOSTOR_ID = 'ses_0190dddddddddddddddddddddddddddd';

interface PsRow {
  name: string;
  version: string;
  url: string;
  sessionId: string;
  pid: number;
  reachable: boolean;
  reason: string | null;
}

describe('mur ps', () => {
  const home = tempDir('home');
  let open: DoorProcess;
  let secure: DoorProcess;
  let old: TinyServer;
  let oldProcess: ChildProcess;
  let silentProcess: ChildProcess;
  let stalePid: number;
  // Registered again by each test that lists it: the mur ps (or any mur command) before removed it.
  const registerStale = () => registerFake(home, { sessionId: STALE_ID, name: 'gone', url: 'http://127.0.0.1:9', pid: stalePid });

  before(async () => {
    [open, secure] = await Promise.all([
      runDoor(makeCapsule(manifest({ name: 'open-door' }), SCRIPT), [], home),
      runDoor(
        makeCapsule(
          manifest({
            name: 'secure-door',
            extra: ['network:', '  authentication:', '    scheme: bearer', '    credentials:', '      watcher:', '        scopes: [GetTask]'],
          }),
          SCRIPT,
        ),
        [],
        home,
      ),
    ]);
    // A runtime at v0.4.0 or earlier: its card has url and session_id, and no supportedInterfaces.
    old = await tinyServer((req, res) => {
      if (req.method === 'GET' && req.url === '/.well-known/agent-card.json') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ name: 'old-runtime', version: '0.0.9', url: 'localhost:1', session_id: OLD_ID, capabilities: { streaming: true } }));
      } else {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{}');
      }
    });
    oldProcess = sleeper();
    silentProcess = sleeper();
    registerFake(home, { sessionId: OLD_ID, name: 'old-runtime', version: '0.0.9', url: old.url, pid: oldProcess.pid! });
    stalePid = await deadPid();
    registerStale();
    // A live process whose address answers nothing (a closed port).
    registerFake(home, { sessionId: SILENT_ID, name: 'silent', url: 'http://127.0.0.1:9', pid: silentProcess.pid! });
    // A record whose address now answers for another session.
    registerFake(home, { sessionId: IMPOSTOR_ID, name: 'impostor', url: open.url, pid: silentProcess.pid! });
  });

  after(async () => {
    oldProcess?.kill('SIGKILL');
    silentProcess?.kill('SIGKILL');
    await Promise.all([open?.stop(), secure?.stop(), old?.close()]);
  });

  test('--json lists every record: the live doors reachable, the others unreachable with the reason', async () => {
    const result = await runMur(['ps', '--json'], home);
    assert.equal(result.code, 0, result.stderr);
    const rows = JSON.parse(result.stdout) as PsRow[];
    const byId = new Map(rows.map((r) => [r.sessionId, r]));
    assert.equal(rows.length, 6);

    assert.deepEqual(byId.get(open.sessionId), {
      name: 'open-door',
      version: '0.1.0',
      url: open.url,
      sessionId: open.sessionId,
      pid: open.pid,
      reachable: true,
      reason: null,
    });
    // The authenticated door's public card has no capsule extension: the registry's id stands.
    assert.equal(byId.get(secure.sessionId)?.reachable, true);
    assert.equal(byId.get(secure.sessionId)?.reason, null);

    const oldRow = byId.get(OLD_ID)!;
    assert.equal(oldRow.reachable, false);
    assert.match(oldRow.reason!, /no supportedInterfaces/);
    assert.equal(oldRow.pid, oldProcess.pid);

    assert.equal(byId.get(STALE_ID)?.reachable, false);
    assert.equal(byId.get(STALE_ID)!.reason, `its process ${stalePid} is gone (a stale record): removed from the registry`);
    assert.equal(existsSync(path.join(home, 'sessions', `${STALE_ID}.json`)), false, 'the stale record is removed once listed');

    assert.equal(byId.get(SILENT_ID)?.reachable, false);
    assert.match(byId.get(SILENT_ID)!.reason!, /^no answer from http:\/\/127\.0\.0\.1:9/);

    assert.equal(byId.get(IMPOSTOR_ID)?.reachable, false);
    assert.equal(byId.get(IMPOSTOR_ID)?.reason, `the door at ${open.url} answers for session ${open.sessionId}, not this one`);

    // The card request carries A2A-Version: 1.0 like every request murmur sends to a door.
    const cardRequest = old.requests.find((r) => r.url === '/.well-known/agent-card.json');
    assert.equal(cardRequest?.headers['a2a-version'], '1.0');
  });

  test('the table names each session and says reachable or why not', async () => {
    registerStale();
    const result = await runMur(['ps'], home);
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stdout.trimEnd().split('\n');
    assert.match(lines[0], /^NAME\s+VERSION\s+ADDRESS\s+SESSION\s+PID\s+STATE$/);
    assert.equal(lines.length, 7);
    const line = (id: string) => lines.find((l) => l.includes(id)) ?? '';
    assert.match(
      line(open.sessionId),
      new RegExp(`^open-door\\s+0\\.1\\.0\\s+${open.url.replace(/\./g, '\\.')}\\s+${open.sessionId}\\s+${open.pid}\\s+reachable$`),
    );
    assert.match(line(OLD_ID), /^old-runtime\s+0\.0\.9\s+.*\s+unreachable: its card has no supportedInterfaces/);
    assert.match(line(STALE_ID), new RegExp(`unreachable: its process ${stalePid} is gone \\(a stale record\\): removed from the registry$`));
  });

  test('mur stop refuses an unreachable session and does not signal it; the records stay', async () => {
    const posts = () => old.requests.filter((r) => r.method === 'POST').length;
    const result = await runMur(['stop', OLD_ID], home);
    assert.equal(result.code, 1);
    assert.equal(result.stdout, '');
    assert.match(
      result.stderr,
      new RegExp(
        `^mur: session ${OLD_ID} \\(old-runtime 0\\.0\\.9, pid ${oldProcess.pid}\\) at ${old.url} is unreachable: its card has no supportedInterfaces`,
      ),
    );
    assert.match(result.stderr, /it was not signalled\n$/);
    assert.equal(posts(), 0, 'no murmur.StopSession was sent');
    assert.equal(oldProcess.exitCode, null);
    assert.equal(oldProcess.signalCode, null);
    process.kill(oldProcess.pid!, 0); // still alive

    const impostor = await runMur(['stop', IMPOSTOR_ID], home);
    assert.equal(impostor.code, 1);
    assert.match(impostor.stderr, /answers for session .* not this one; it was not signalled/);
    const silent = await runMur(['stop', SILENT_ID], home);
    assert.equal(silent.code, 1);
    assert.match(silent.stderr, /is unreachable: no answer from http:\/\/127\.0\.0\.1:9 .*; it was not signalled/);
    process.kill(silentProcess.pid!, 0);

    const listed = JSON.parse((await runMur(['ps', '--json'], home)).stdout) as PsRow[];
    assert.deepEqual(
      listed.map((r) => r.sessionId).sort(),
      [open.sessionId, secure.sessionId, OLD_ID, SILENT_ID, IMPOSTOR_ID].sort(),
      'the unreachable records whose process runs are kept; only the stale one was removed',
    );
  });

  test('usage errors exit 2; a home with no records says so', async () => {
    const bad = await runMur(['ps', '--nope'], home);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /Unknown option '--nope'[\s\S]*usage: mur ps/);
    const extra = await runMur(['ps', 'what'], home);
    assert.equal(extra.code, 2);
    const empty = tempDir('home');
    const none = await runMur(['ps'], empty);
    assert.equal(none.code, 0);
    assert.equal(none.stdout, 'no session is registered on this host (mur run starts one)\n');
    assert.equal((await runMur(['ps', '--json'], empty)).stdout, '[]\n');
  });
});

describe('mur ps as a tree: a formation’s members under it, a delegation’s children under their parent', () => {
  const home = tempDir('home');
  const id = (c: string) => `ses_0190${c.repeat(28)}`;
  const at = (s: number) => new Date(Date.UTC(2026, 11, 1, 12, 0, s)).toISOString();
  let pid: number;
  let supervisor: ChildProcess;
  after(() => supervisor?.kill('SIGKILL'));

  // The sessions' pid is gone, so each mur ps lists them once and removes them: each test registers them again.
  const registerSessions = () => {
    const formation = (member: string, entry = false) => ({ name: 'trio', member, entry, supervisorPid: pid });
    // Registered out of order: the tree, not the start times, decides where each row goes.
    registerFake(home, { sessionId: id('1'), name: 'solo', url: 'http://127.0.0.1:9', pid, startedAt: at(1) });
    registerFake(home, { sessionId: id('2'), name: 'critic-capsule', url: 'http://127.0.0.1:9', pid, startedAt: at(2), formation: formation('critic') });
    registerFake(home, { sessionId: id('3'), name: 'worker', url: 'http://127.0.0.1:9', pid, startedAt: at(3), formation: formation('worker') });
    registerFake(home, { sessionId: id('4'), name: 'planner', url: 'http://127.0.0.1:9', pid, startedAt: at(4), formation: formation('planner', true) });
    registerFake(home, {
      sessionId: id('5'),
      name: 'helper',
      url: 'http://127.0.0.1:9',
      pid,
      startedAt: at(5),
      delegation: { parentSessionId: id('3'), delegationId: 'dlg_aa' },
    });
    registerFake(home, {
      sessionId: id('6'),
      name: 'deeper',
      url: 'http://127.0.0.1:9',
      pid,
      startedAt: at(6),
      delegation: { parentSessionId: id('5'), delegationId: 'dlg_bb' },
    });
    registerFake(home, {
      sessionId: id('7'),
      name: 'second',
      url: 'http://127.0.0.1:9',
      pid,
      startedAt: at(7),
      delegation: { parentSessionId: id('1'), delegationId: 'dlg_cc' },
    });
    registerFake(home, {
      sessionId: id('8'),
      name: 'orphan',
      url: 'http://127.0.0.1:9',
      pid,
      startedAt: at(8),
      delegation: { parentSessionId: id('9'), delegationId: 'dlg_dd' },
    });
  };

  before(async () => {
    pid = await deadPid();
    // The supervisor's record gives the roster order (planner, worker, critic). Its pid must be alive to be read.
    supervisor = sleeper();
    mkdirSync(path.join(home, 'formations'), { recursive: true });
    const members = ['planner', 'worker', 'critic'].map((member, i) => ({ member, sessionId: id(String(4 - i)), url: 'http://127.0.0.1:9', pid }));
    writeFileSync(
      path.join(home, 'formations', `trio-${supervisor.pid}.json`),
      JSON.stringify({ name: 'trio', pid: supervisor.pid, rosterFile: '/x/roster.yaml', entry: 'planner', members, startedAt: at(0) }),
    );
  });

  test('--json lists the rows in tree order, each child carrying its parent', async () => {
    registerSessions();
    const rows = JSON.parse((await runMur(['ps', '--json'], home)).stdout) as (PsRow & {
      formation?: { member: string };
      parent?: { sessionId: string; delegationId: string };
    })[];
    assert.deepEqual(
      rows.map((r) => r.name),
      ['solo', 'second', 'planner', 'worker', 'helper', 'deeper', 'critic-capsule', 'orphan'],
    );
    const byName = new Map(rows.map((r) => [r.name, r]));
    assert.deepEqual(byName.get('helper')?.parent, { sessionId: id('3'), delegationId: 'dlg_aa' });
    assert.deepEqual(byName.get('deeper')?.parent, { sessionId: id('5'), delegationId: 'dlg_bb' });
    // A child whose parent is not listed stays a root, still naming its parent.
    assert.deepEqual(byName.get('orphan')?.parent, { sessionId: id('9'), delegationId: 'dlg_dd' });
    assert.equal(byName.get('solo')?.parent, undefined);
    assert.equal(byName.get('planner')?.formation?.member, 'planner');
  });

  test('the table draws the tree: one formation line, its members in roster order, children indented under parents', async () => {
    registerSessions();
    const out = (await runMur(['ps'], home)).stdout.split('\n').filter((l) => l !== '');
    const versionAt = out[0].indexOf('VERSION');
    const names = out.slice(1).map((l) => (l.startsWith('formation ') ? l : l.slice(0, versionAt).trimEnd()));
    assert.deepEqual(names, [
      'solo',
      '└─ second (delegation dlg_cc)',
      `formation trio: 3 members, entry planner, supervisor pid ${supervisor.pid}`,
      '├─ planner (entry)',
      '├─ worker',
      '│  └─ helper (delegation dlg_aa)',
      '│     └─ deeper (delegation dlg_bb)',
      '└─ critic: critic-capsule',
      'orphan (delegation dlg_dd)',
    ]);
    assert.match(out[0], /^NAME\s+VERSION\s+ADDRESS\s+SESSION\s+PID\s+STATE$/);
    assert.match(
      out.find((l) => l.startsWith('│     └─ deeper'))!,
      new RegExp(`${id('6')}\\s+${pid}\\s+unreachable: its process ${pid} is gone \\(a stale record\\): removed from the registry$`),
    );
  });
});
