/**
 * `mur console`'s running-now watch (docs/console.md, "Running now"): real doors on real ports registered in one
 * MURMUR_HOME, a formation member among them, plus added doors that refuse or never answer. The snapshot shows each
 * door's live tasks with their activity (a tool call in flight, a prompt waiting for a reply), the aggregated stream
 * pushes changes, a door that needs a token or does not answer is held as the page's door hold holds it, and the
 * bounds on doors, tasks followed and tasks shown hold. The door bound's cut is a unit spec beside the watch
 * (src/console-server/running/running-now.spec.ts): reaching RUNNING_DOORS_MAX takes that many doors.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { MurmurClient } from '@murmur/client';
import type { ConsoleRunningSnapshot, RunningDoor } from '@murmur/protocol';
import { RUNNING_DOORS_MAX, RUNNING_TASKS_PER_DOOR_MAX, RUNNING_TASKS_SHOWN } from '@murmur/protocol';
import { startTestConsole } from './support/console.js';
import { type TinyServer, tinyServer, until } from './support/client-cli.js';
import { type DoorProcess, makeCapsule, manifestYaml, REPO_ROOT, runDoor, tempDir } from './support/door-process.js';
import { type FormationProcess, makeFormation, memberManifest, runFormation } from './support/formation.js';

const SCRIPT = `
rules:
  - match: ^sleep
    turns:
      - tools:
          - tool: bash
            input: { command: "sleep 60" }
      - answer: slept
  - match: ^ask
    turns:
      - ask: "Which colour, {{task.text}}?"
      - answer: "got {{reply}}"
default:
  turns:
    - answer: "hi"
`;

const BUSY = `
default:
  turns:
    - tools:
        - tool: bash
          input: { command: "sleep 60" }
    - answer: done
`;

const ROSTER = `name: crew
entry: lead
members:
  lead: { capsule: ./lead }
  helper: { capsule: ./helper }
rules:
  - from: lead
    to: [helper]
`;

/**
 * Reads SSE snapshots from the aggregated stream until `probe` accepts one; `afterFirst` runs once the first snapshot
 * has arrived (and before the next is read), so a change it makes cannot land before the stream's first snapshot.
 */
async function streamUntil<T>(
  url: string,
  probe: (s: ConsoleRunningSnapshot) => T | undefined,
  what: string,
  afterFirst?: () => Promise<unknown>,
): Promise<{ value: T; snapshots: number }> {
  const abort = new AbortController();
  const answer = await fetch(url, { signal: abort.signal });
  assert.equal(answer.status, 200);
  assert.equal(answer.headers.get('content-type'), 'text/event-stream');
  const reader = answer.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let snapshots = 0;
  const deadline = Date.now() + 20_000;
  try {
    while (Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        end = buffer.indexOf('\n\n');
        if (!event.startsWith('data: ')) continue;
        snapshots += 1;
        const found = probe(JSON.parse(event.slice(6)) as ConsoleRunningSnapshot);
        if (found !== undefined) return { value: found, snapshots };
        if (snapshots === 1) await afterFirst?.();
      }
    }
  } finally {
    abort.abort();
  }
  throw new Error(`the stream never showed ${what}`);
}

describe('the running-now watch', () => {
  const home = tempDir('home');
  const doors: DoorProcess[] = [];
  let secure: DoorProcess;
  let formation: FormationProcess;
  let refusing: TinyServer;
  let silent: TinyServer;
  let consoleUrl: string;
  let close: () => Promise<void>;

  before(async () => {
    const capsule = makeCapsule(manifestYaml({ name: 'watched' }), SCRIPT);
    const roster = makeFormation(ROSTER, {
      lead: {
        manifest: memberManifest('lead', { acceptance: 'queue' }).replace('capabilities:\n', 'capabilities:\n  shell:\n    allow: [bash]\n'),
        script: BUSY,
      },
      helper: { manifest: memberManifest('helper', { callee: true }), script: 'default:\n  turns:\n    - answer: ok\n' },
    });
    const started = await Promise.all([
      runDoor(capsule, [], home),
      runDoor(capsule, [], home),
      runDoor(path.join(REPO_ROOT, 'examples/secure'), [], home),
      runFormation(roster, home),
    ]);
    doors.push(started[0], started[1]);
    secure = started[2];
    formation = started[3];
    refusing = await tinyServer((_req, res) => {
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer realm="x"' });
      res.end(JSON.stringify({ error: 'unauthenticated', message: 'this door needs a token' }));
    });
    silent = await tinyServer((req) => req.socket.destroy());
    const server = await startTestConsole(home, { doors: [{ url: refusing.url }, { url: silent.url }] });
    consoleUrl = server.url;
    close = server.close;
  });
  after(async () => {
    await close?.();
    await Promise.all([...doors, secure].map((d) => d?.stop()));
    formation?.mur.kill('SIGTERM');
    await formation?.mur.exited;
    await refusing?.close();
    await silent?.close();
  });

  const snapshot = async (url = consoleUrl): Promise<ConsoleRunningSnapshot> => {
    const answer = await fetch(`${url}/api/running`);
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('cache-control'), 'no-store');
    return (await answer.json()) as ConsoleRunningSnapshot;
  };
  const doorOf = (s: ConsoleRunningSnapshot, url: string): RunningDoor | undefined => s.doors.find((d) => d.url === url);

  test('lists every door it knows, states its bounds, and watches the local ones live', async () => {
    const live = await until(async () => {
      const s = await snapshot();
      return doors.every((d) => doorOf(s, d.url)?.state === 'live') ? s : undefined;
    }, 'both script doors live');
    assert.deepEqual(live.bounds, { doors: RUNNING_DOORS_MAX, tasksPerDoor: RUNNING_TASKS_PER_DOOR_MAX, shownPerDoor: RUNNING_TASKS_SHOWN });
    assert.equal(live.unwatched, 0);
    // Two script doors, the secure door, two formation members, two added doors.
    assert.equal(live.doors.length, 7);
    const first = doorOf(live, doors[0].url)!;
    assert.equal(first.origin, 'local');
    assert.equal(first.name, 'watched');
    assert.equal(first.sessionId, doors[0].sessionId);
    assert.equal(first.key, new URL(doors[0].url).host);
    assert.equal(first.formation, null);
    assert.deepEqual(doorOf(live, refusing.url)?.origin, 'added');
  });

  test('a task in a tool call reads the tool; a task waiting for input reads its prompt; a reply moves it on', async () => {
    // Each door runs one task at a time (task_acceptance: queue): the tool call on one, the question on the other.
    const sleeper = new MurmurClient(doors[0].url);
    const asker = new MurmurClient(doors[1].url);
    const sleeping = await sleeper.sendText('sleep now', { returnImmediately: true });
    const asking = await asker.sendText('ask Ada', { returnImmediately: true });
    const shown = await until(async () => {
      const s = await snapshot();
      const tool = doorOf(s, doors[0].url)?.tasks.find((t) => t.taskId === sleeping.id);
      const d = doorOf(s, doors[1].url);
      const input = d?.tasks.find((t) => t.taskId === asking.id);
      return d && tool?.activity.kind === 'tool' && input?.activity.kind === 'input' ? { d, tool, input } : undefined;
    }, 'the tool call and the prompt');
    assert.deepEqual({ ...shown.tool.activity, startedAt: undefined }, { kind: 'tool', tool: 'bash', toolCallId: 'call_1', turn: 1, startedAt: undefined });
    assert.equal(shown.tool.state, 'TASK_STATE_WORKING');
    assert.ok(shown.tool.createdAt !== null && Math.abs(Date.parse(shown.tool.createdAt) - Date.now()) < 60_000, `created ${shown.tool.createdAt}`);
    assert.deepEqual(shown.input.activity, { kind: 'input', prompt: 'Which colour, ask Ada?' });
    assert.equal(shown.input.state, 'TASK_STATE_INPUT_REQUIRED');
    assert.deepEqual(shown.d.counts, { TASK_STATE_INPUT_REQUIRED: 1 });

    // The reply is sent once the stream's first snapshot (the task still waiting) has arrived.
    const { value, snapshots } = await streamUntil(
      `${consoleUrl}/api/running/stream`,
      (s) => (doorOf(s, doors[1].url)?.tasks.some((t) => t.taskId === asking.id) === false ? s : undefined),
      'the answered task gone',
      () => asker.reply(asking.id, 'teal', { returnImmediately: true }),
    );
    assert.ok(snapshots >= 2, 'the stream sent the snapshot at once, then the change');
    assert.deepEqual(doorOf(value, doors[1].url)?.counts, {});
    await sleeper.cancelTask(sleeping.id);
    await until(async () => ((doorOf(await snapshot(), doors[0].url)?.tasks.length ?? 1) === 0 ? true : undefined), 'the canceled task gone');
  });

  test('waiting for input comes first; past the shown bound the rest are counted', async () => {
    const client = new MurmurClient(doors[0].url);
    // One runs, the rest queue behind it; the last asks (it waits its turn in the queue too).
    const queued = [];
    for (let i = 0; i < RUNNING_TASKS_SHOWN + 2; i += 1) queued.push(await client.sendText(`sleep ${i}`, { returnImmediately: true }));
    const d = await until(async () => {
      const found = doorOf(await snapshot(), doors[0].url);
      return found && found.tasks.length + found.moreTasks === queued.length ? found : undefined;
    }, 'every task followed');
    assert.equal(d.tasks.length, RUNNING_TASKS_SHOWN);
    assert.equal(d.moreTasks, 2);
    assert.deepEqual(d.counts, { TASK_STATE_WORKING: 1, TASK_STATE_SUBMITTED: queued.length - 1 });
    // The oldest first.
    assert.deepEqual(
      d.tasks.map((t) => t.taskId),
      queued.slice(0, RUNNING_TASKS_SHOWN).map((t) => t.id),
    );
    assert.deepEqual(d.tasks[1].activity, { kind: 'queued' });
    for (const task of queued) await client.cancelTask(task.id);
    await until(async () => ((doorOf(await snapshot(), doors[0].url)?.tasks.length ?? 1) === 0 ? true : undefined), 'the canceled tasks gone');
  });

  test('a task started before the watch is seeded from ListTasks', async () => {
    const client = new MurmurClient(doors[1].url);
    const asking = await client.sendText('ask Bo', { returnImmediately: true });
    // A second mur console on the same home, started after the task: its watch begins with the task already there.
    const other = await startTestConsole(home);
    try {
      const seen = await until(
        async () => doorOf(await snapshot(other.url), doors[1].url)?.tasks.find((t) => t.taskId === asking.id && t.activity.kind === 'input'),
        'the seeded task',
      );
      assert.deepEqual(seen.activity, { kind: 'input', prompt: 'Which colour, ask Bo?' });
    } finally {
      await other.close();
      await client.cancelTask(asking.id);
    }
  });

  test('a busy formation member is named with its formation and task', async () => {
    const lead = formation.member('lead');
    const task = await new MurmurClient(lead.url).sendText('work', { returnImmediately: true });
    const d = await until(async () => {
      const found = doorOf(await snapshot(), lead.url);
      return found?.tasks.some((t) => t.taskId === task.id && t.activity.kind === 'tool') ? found : undefined;
    }, 'the lead busy');
    assert.deepEqual(d.formation, { name: 'crew', member: 'lead', entry: true });
    assert.deepEqual(doorOf(await snapshot(), formation.member('helper').url)?.formation, { name: 'crew', member: 'helper', entry: false });
    await new MurmurClient(lead.url).cancelTask(task.id);
  });

  test('a door that answers 401 is held after one request, until the operator asks again', async () => {
    const held = await until(async () => {
      const d = doorOf(await snapshot(), refusing.url);
      return d?.state === 'needs-token' ? d : undefined;
    }, 'the refusing door held');
    assert.equal(held.problem, 'the door answered 401: open it to give a token, then ask again');
    assert.equal(held.retryAt, null);
    assert.deepEqual(held.tasks, []);
    // The real secure door reads the same.
    assert.equal(doorOf(await snapshot(), secure.url)?.state, 'needs-token');
    const before = refusing.requests.length;
    assert.equal(before, 1, 'one ListTasks, no retries');
    const again = await fetch(`${consoleUrl}/api/running/doors/${held.key}/retry`, { method: 'POST' });
    assert.equal(again.status, 204);
    await until(() => (refusing.requests.length === 2 ? true : undefined), 'a second request after Ask again');
    await until(async () => (doorOf(await snapshot(), refusing.url)?.state === 'needs-token' ? true : undefined), 'held again');
    assert.equal(refusing.requests.length, 2);
  });

  test('a door that does not answer is held after one request, asked again on the back-off or when the operator asks', async () => {
    // A mur console of its own, started now, so the back-off's first step (5 s) is still ahead.
    const dead = await tinyServer((req) => req.socket.destroy());
    const startedAt = Date.now();
    const own = await startTestConsole(tempDir('empty-home'), { doors: [{ url: dead.url }] });
    try {
      const held = await until(async () => {
        const d = doorOf(await snapshot(own.url), dead.url);
        return d?.state === 'unreachable' ? d : undefined;
      }, 'the silent door held');
      assert.equal(dead.requests.length, 1, 'one ListTasks, no retries');
      assert.ok(held.problem !== null && held.problem.length > 0);
      const retryAt = Date.parse(held.retryAt ?? '');
      assert.ok(retryAt >= startedAt + 5_000 && retryAt <= Date.now() + 5_000, `asked again at the first step, ${held.retryAt}`);
      const asked = await fetch(`${own.url}/api/running/doors/${held.key}/retry`, { method: 'POST' });
      assert.equal(asked.status, 204, 'Ask again for a door it watches');
      await until(() => (dead.requests.length === 2 ? true : undefined), 'a second request after Ask again');
      const again = await until(async () => {
        const d = doorOf(await snapshot(own.url), dead.url);
        return d?.state === 'unreachable' ? d : undefined;
      }, 'held again');
      // The second failure in a row waits the second step.
      assert.ok(Date.parse(again.retryAt ?? '') >= Date.now() + 5_000, `the second step, ${again.retryAt}`);
    } finally {
      await own.close();
      await dead.close();
    }
  });

  test('Ask again for a door it does not watch is 404 not_found', async () => {
    const answer = await fetch(`${consoleUrl}/api/running/doors/127.0.0.1:1/retry`, { method: 'POST' });
    assert.equal(answer.status, 404);
    assert.deepEqual(await answer.json(), { error: 'not_found', message: 'the running-now page watches no door 127.0.0.1:1' });
  });
});
