/**
 * `mur run --roster roster.yaml --host H` (docs/formations.md, "One host, watched from anywhere"; docs/cli.md,
 * "--host"): a real formation whose every door listens on 127.0.0.2 — an address of this machine that is not the
 * loopback 127.0.0.1 the members use by default, so the "lists localhost" egress must admit the formation's own
 * doors there, and only them. The errors of --host, the same for `mur run` and `mur run --roster`.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { MurmurClient } from '@murmur/client';
import { spawnMur } from './support/client-cli.js';
import { makeCapsule, manifestYaml, tempDir } from './support/door-process.js';
import { type FormationProcess, makeFormation, memberManifest, runFormation } from './support/formation.js';

const HOST = '127.0.0.2';

const PLANNER = `
rules:
  - match: ^ask
    turns:
      - tools:
          - tool: call-member
            input: { member: worker, task: "count" }
        answer: "waiting for worker"
      - answer: "{{continuation}}"
default:
  turns:
    - answer: "planner: {{task.text}}"
`;

const WORKER = `
default:
  turns:
    - answer: "worker: {{task.text}}"
`;

const ROSTER = `name: faraway
entry: planner
members:
  planner: { capsule: ./planner }
  worker: { capsule: ./worker }
rules:
  - from: planner
    to: [worker]
`;

describe('mur run --roster --host 127.0.0.2', () => {
  const home = tempDir('home');
  let formation: FormationProcess;

  before(async () => {
    const roster = makeFormation(ROSTER, {
      planner: { manifest: memberManifest('planner', { allow: ['localhost'] }), script: PLANNER },
      worker: { manifest: memberManifest('worker', { callee: true }), script: WORKER },
    });
    formation = await runFormation(roster, home, ['--host', HOST]);
  });
  after(() => formation?.mur.kill('SIGKILL'));

  test('every member URL of the announcement, the formation registry and the session registry is on that address', () => {
    for (const m of formation.members) assert.match(m.url, /^http:\/\/127\.0\.0\.2:\d+$/, m.member);
    const [file] = readdirSync(path.join(home, 'formations'));
    const registered = JSON.parse(readFileSync(path.join(home, 'formations', file), 'utf8')) as { members: { member: string; url: string }[] };
    assert.deepEqual(
      registered.members.map((m) => [m.member, m.url]),
      formation.members.map((m) => [m.member, m.url]),
    );
    for (const m of formation.members) {
      const entry = JSON.parse(readFileSync(path.join(home, 'sessions', `${m.sessionId}.json`), 'utf8')) as { url: string };
      assert.equal(entry.url, m.url);
    }
  });

  test('a door listens on that address only, not on 127.0.0.1', async () => {
    const worker = new URL(formation.member('worker').url);
    assert.equal((await fetch(new URL('/.well-known/agent-card.json', worker))).status, 200);
    await assert.rejects(fetch(`http://127.0.0.1:${worker.port}/.well-known/agent-card.json`), /fetch failed/);
  });

  test('the planner calls the worker on its 127.0.0.2 door: its allowlist lists localhost, and the call completes', async () => {
    const task = await new MurmurClient(formation.member('planner').url).sendText('ask the worker');
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    const text = task.artifacts?.find((a) => a.artifactId === 'response')?.parts[0].text ?? '';
    assert.match(
      text,
      /\[call-member\] call mcl_\w+ to worker ended completed:\n<untrusted-content source=member:worker>\nworker: count\n<\/untrusted-content>/,
    );
    // The worker's task came from the planner, with its member token.
    const workerTrace = readFileSync(path.join(formation.member('worker').recordsDir, 'trace.jsonl'), 'utf8');
    assert.match(workerTrace, /"type":"task_start"[^\n]*"origin":"member:planner"/);
  });
});

describe('the errors of --host, the same for mur run and mur run --roster (exit 2, nothing started)', () => {
  const roster = makeFormation(ROSTER, {
    planner: { manifest: memberManifest('planner'), script: PLANNER },
    worker: { manifest: memberManifest('worker', { callee: true }), script: WORKER },
  });
  const capsule = makeCapsule(manifestYaml({ name: 'lone' }), 'default:\n  turns:\n    - answer: hi\n');
  const cases: [string, string][] = [
    ['', "mur: --host takes one address of this machine (an IP address or a host name), not ''"],
    ['0.0.0.0', 'mur: --host 0.0.0.0 is every address of this machine, not one: a door announces its address to its callers, so give one of them'],
    ['::', 'mur: --host :: is every address of this machine, not one: a door announces its address to its callers, so give one of them'],
    ['192.0.2.7', 'mur: --host 192.0.2.7 is not an address of this machine, so no door can listen on it'],
    ['nowhere.invalid', 'mur: --host nowhere.invalid: no address is known for this name (ENOTFOUND)'],
  ];
  for (const [host, message] of cases) {
    test(`--host '${host}'`, async () => {
      for (const args of [
        ['run', capsule, '--host', host],
        ['run', '--roster', roster, '--host', host],
      ]) {
        const home = tempDir('home');
        const result = await spawnMur(args, home).exited;
        assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
        assert.equal(result.stderr.trim(), message, args.join(' '));
        assert.equal(result.stdout, '');
        // Refused before anything was staged: no records, no registry entry.
        for (const dir of ['records', 'sessions', 'formations']) assert.equal(existsSync(path.join(home, dir)), false, `${dir} under ${args.join(' ')}`);
      }
    });
  }
});
