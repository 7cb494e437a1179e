/**
 * mur run --roster (docs/formations.md): the roster refused at load with clear errors, three members launched on
 * real doors, the formation in mur ps, mur stop stopping it as a whole; member tokens added after launch, each
 * seeing only the tasks its member started (seed 000, "Who sees a task").
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { MurmurClient, TaskNotFoundError } from '@murmur/client';
import { pidExists, runMur, until } from './support/client-cli.js';
import path from 'node:path';
import { REPO_ROOT, tempDir } from './support/door-process.js';
import { forkMember, makeFormation, memberManifest, nextMessage, runFormation } from './support/formation.js';

const ANSWER = 'default:\n  turns:\n    - answer: "done: {{task.text}}"\n';
const ROSTER = [
  'name: trio',
  'entry: planner',
  'members:',
  '  planner: { capsule: ./planner }',
  '  worker: { capsule: ./worker }',
  '  critic: { capsule: ./critic }',
];

function trio(rules: string[], overrides: Partial<Record<'planner' | 'worker' | 'critic', string>> = {}): string {
  return makeFormation([...ROSTER, 'rules:', ...rules, ''].join('\n'), {
    planner: { manifest: overrides.planner ?? memberManifest('planner'), script: ANSWER },
    worker: { manifest: overrides.worker ?? memberManifest('worker', { callee: true }), script: ANSWER },
    critic: { manifest: overrides.critic ?? memberManifest('critic', { callee: true }), script: ANSWER },
  });
}

describe('roster validation at load', () => {
  const home = tempDir('home');
  // Each refusal in the one config format (docs/cli.md, "What a refusal names"): the file, then per bad key its path,
  // the value found and what is allowed there.
  const refused = async (roster: string, lines: string[]) => {
    const result = await runMur(['run', '--roster', roster], home);
    assert.equal(result.code, 2, result.stderr);
    assert.equal(result.stderr, `mur: ${roster}:\n${lines.map((l) => `  ${l}\n`).join('')}`);
    assert.equal(result.stdout, '');
  };

  test('a rule naming a member that does not exist', () =>
    refused(trio(['  - from: planner', '    to: [worker, reviewer]']), ['rules[0].to[1]: found "reviewer"; allowed: a member: planner, worker, critic']));

  test('an entry that is not a member', async () => {
    const roster = makeFormation('name: x\nentry: boss\nmembers:\n  a: { capsule: ./a }\n', { a: { manifest: memberManifest('a'), script: ANSWER } });
    await refused(roster, ['entry: found "boss"; allowed: a member: a']);
  });

  test('a callee that does not accept peer tasks', () =>
    refused(trio(['  - from: planner', '    to: [worker]'], { worker: memberManifest('worker') }), [
      'members.worker.capsule: found "./worker" (its murmur.yaml does not accept peer tasks); allowed: a capsule with exports.peer_tasks.accept: true: planner calls worker, and every call would be answered 403 peer_not_accepted',
    ]));

  test('a cycle', () =>
    refused(
      trio(['  - from: planner', '    to: [worker]', '  - from: worker', '    to: [critic]', '  - from: critic', '    to: [planner]'], {
        planner: memberManifest('planner', { callee: true }),
      }),
      ["rules: found a cycle: planner → worker → critic → planner; allowed: rules whose calls flow one way: a formation's calls must not come back"],
    ));

  test('a member calling itself, and an unknown key', async () => {
    await refused(trio(['  - from: planner', '    to: [planner]']), [
      'rules[0].to[0]: found "planner" (the rule\'s own from); allowed: another member: a member may not call itself',
    ]);
    await refused(trio(['  - from: planner', '    to: [worker]', '    via: http']), ['rules[0]: found unknown key "via"; allowed: the keys from, to']);
  });

  test('a member whose manifest is bad names the member and, below, its own refusal', async () => {
    const roster = trio(['  - from: planner', '    to: [worker]'], { critic: 'name: critic\nversion: one\n' });
    await refused(roster, [
      'members.critic.capsule: found "./critic" (its murmur.yaml is refused, below); allowed: a capsule folder whose murmur.yaml loads',
      `  ${path.join(path.dirname(roster), 'critic', 'murmur.yaml')}:`,
      '    version: found "one"; allowed: a semantic version: MAJOR.MINOR.PATCH',
    ]);
  });
});

describe('a formation launched, listed and stopped as a whole', () => {
  const home = tempDir('home');
  let formation: Awaited<ReturnType<typeof runFormation>>;
  after(() => formation?.mur.kill('SIGKILL'));

  test('every member its own session and door, the formation in mur ps, mur stop stops them all', async () => {
    formation = await runFormation(trio(['  - from: planner', '    to: [worker, critic]']), home, ['--task', 'plan it']);
    assert.equal(formation.formation, 'trio');
    assert.equal(formation.entry, 'planner');
    assert.deepEqual(
      formation.members.map((m) => m.member),
      ['planner', 'worker', 'critic'],
    );
    assert.equal(new Set(formation.members.map((m) => m.url)).size, 3);
    assert.equal(new Set(formation.members.map((m) => m.pid)).size, 3);
    assert.ok(formation.launchTaskId?.startsWith('tsk_'));
    // The launch task ran on the entry member's door.
    const entry = new MurmurClient(formation.member('planner').url);
    const task = await until(async () => {
      const t = await entry.getTask(formation.launchTaskId!);
      return t.status.state === 'TASK_STATE_COMPLETED' ? t : undefined;
    }, 'the launch task completed');
    assert.equal(task.artifacts?.[0].parts[0].text, 'done: plan it');

    const ps = JSON.parse((await runMur(['ps', '--json'], home)).stdout) as {
      sessionId: string;
      reachable: boolean;
      formation?: { name: string; member: string; entry: boolean };
    }[];
    assert.equal(ps.length, 3);
    for (const row of ps) assert.equal(row.reachable, true);
    assert.deepEqual(
      ps.map((r) => r.formation).sort((a, b) => a!.member.localeCompare(b!.member)),
      [
        { name: 'trio', member: 'critic', entry: false },
        { name: 'trio', member: 'planner', entry: true },
        { name: 'trio', member: 'worker', entry: false },
      ],
    );
    const table = (await runMur(['ps'], home)).stdout.split('\n');
    const at = table.findIndex((l) => l.startsWith('formation trio: 3 members, entry planner, supervisor pid '));
    assert.ok(at > 0, table.join('\n'));
    assert.deepEqual(
      table.slice(at + 1, at + 4).map((l) => l.split(/\s{2,}/)[0]),
      ['├─ planner (entry)', '├─ worker', '└─ critic'],
    );

    const stopped = await runMur(['stop', 'trio', '--json'], home, { timeoutMs: 60_000 });
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.deepEqual(JSON.parse(stopped.stdout), { formation: 'trio', pid: formation.pid, members: formation.members.map((m) => m.sessionId), stopped: true });
    assert.equal((await formation.mur.exited).code, 0);
    for (const m of formation.members) assert.equal(pidExists(m.pid), false, `${m.member} exited`);
    assert.equal((await runMur(['ps', '--json'], home)).stdout, '[]\n');
  });
});

describe('member tokens, added after launch', () => {
  const home = tempDir('home');
  const roster = trio(['  - from: planner', '    to: [worker]', '  - from: critic', '    to: [worker]']);
  const child = forkMember(roster, 'worker', home);
  after(() => child.kill('SIGKILL'));
  const mint = () => `mur_${randomBytes(32).toString('base64url')}`;
  const scopes = ['SendMessage', 'GetTask', 'ListTasks', 'CancelTask'];

  test('a member token sees only the tasks its member started; ListTasks totalSize per token', async () => {
    const announced = await nextMessage<{ kind: string; url: string }>(child, 'announced');
    const planner = mint();
    const critic = mint();
    // Before the seat, a member token is just a header a public door ignores.
    const early = new MurmurClient(announced.url, { token: planner });
    await early.sendText('before the seat');
    child.send({
      kind: 'seat',
      links: [],
      doors: [],
      accept: [
        { credential: 'member:planner', scopes, token: planner },
        { credential: 'member:critic', scopes, token: critic },
      ],
    });
    await nextMessage(child, 'seated');
    const asPlanner = new MurmurClient(announced.url, { token: planner });
    const asCritic = new MurmurClient(announced.url, { token: critic });
    const asPublic = new MurmurClient(announced.url);
    const p1 = await asPlanner.sendText('one');
    await asPlanner.sendText('two');
    await asCritic.sendText('three');
    assert.equal((await asPlanner.listTasks()).totalSize, 2);
    assert.equal((await asCritic.listTasks()).totalSize, 1);
    assert.equal((await asPublic.listTasks()).totalSize, 4);
    // An unknown token on a public member door is ignored: a public caller.
    assert.equal((await new MurmurClient(announced.url, { token: mint() }).listTasks()).totalSize, 4);
    await assert.rejects(asCritic.getTask(p1.id), TaskNotFoundError);
    assert.equal((await asPlanner.getTask(p1.id)).id, p1.id);
    // A member token reaches only its four scopes.
    await assert.rejects(asPlanner.stopSession(), /insufficient_scope|does not reach murmur\.StopSession/);
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  });
});

describe('examples/formation', () => {
  const home = tempDir('home');
  let formation: Awaited<ReturnType<typeof runFormation>>;
  after(() => formation?.mur.kill('SIGKILL'));

  test('runs under mur run --roster: planner hands task.md to worker and critic and answers with both', async () => {
    formation = await runFormation(path.join(REPO_ROOT, 'examples', 'formation', 'roster.yaml'), home);
    const planner = new MurmurClient(formation.member('planner').url);
    const task = await until(async () => {
      const t = await planner.getTask(formation.launchTaskId!);
      return t.status.state === 'TASK_STATE_COMPLETED' ? t : undefined;
    }, 'the launch task completed');
    const text = task.artifacts![0].parts[0].text!;
    assert.match(
      text,
      /^planner, with what worker and critic said:\n\n\[call-member\] call mcl_\w+ to worker ended completed:\n<untrusted-content source=member:worker>\nPackets go nowhere/,
    );
    assert.match(text, /to critic ended completed:\n<untrusted-content source=member:critic>\nIt needs seventeen syllables/);
    formation.mur.kill('SIGTERM');
    assert.equal((await formation.mur.exited).code, 0);
  });
});
