/**
 * `mur console`'s formation view API (docs/console.md, "Formations"): a three-member formation under
 * `mur run --roster`, its members and the calls between them while in flight and once ended, read from the registry,
 * stores and traces; and the caller's task record naming the member task each call-member tool call started.
 */
import assert from 'node:assert/strict';
import os from 'node:os';
import { after, before, describe, test } from 'node:test';
import { MurmurClient } from '@murmur/client';
import type { ConsoleFormation, ConsoleFormationsResponse, ConsoleTaskRecordPage, TaskRecordEntry } from '@murmur/protocol';
import { until } from './support/client-cli.js';
import { tempDir } from './support/door-process.js';
import { startTestConsole } from './support/console.js';
import { type FormationProcess, makeFormation, memberManifest, runFormation } from './support/formation.js';

const PLANNER = `
rules:
  - match: ^review
    turns:
      - tools:
          - tool: call-member
            input: { member: worker, task: "draft {{task.text}}" }
          - tool: call-member
            input: { member: critic, task: "judge {{task.text}}" }
        answer: waiting
      - answer: "{{continuation}}"
default:
  turns:
    - answer: "planner: {{task.text}}"
`;

const WORKER = `
default:
  turns:
    - sleep_ms: 2500
      tools:
        - tool: bash
          input: { command: "echo drafted" }
    - answer: "worker: {{tool.stdout}}"
`;

const CRITIC = `
default:
  turns:
    - answer: "critic: fine"
`;

const ROSTER = `name: viewed
entry: planner
members:
  planner: { capsule: ./planner }
  worker: { capsule: ./worker }
  critic: { capsule: ./critic }
rules:
  - from: planner
    to: [worker, critic]
`;

describe('the formation view API', () => {
  const home = tempDir('home');
  let formation: FormationProcess;
  let consoleUrl: string;
  let close: () => Promise<void>;
  // mur console starts beside the doors: it reads the home on each request, so nothing needs to exist before it.
  let consoleStarting: Promise<void> | undefined;

  before(async () => {
    consoleStarting = startTestConsole(home, { host: '0.0.0.0' }).then((started) => {
      consoleUrl = started.url.replace('0.0.0.0', '127.0.0.1');
      close = started.close;
    });
    const roster = makeFormation(ROSTER, {
      planner: { manifest: memberManifest('planner', { acceptance: 'queue', lifecycle: ['delegation_deadline_secs: 30'] }), script: PLANNER },
      worker: {
        manifest: memberManifest('worker', { callee: true }).replace('capabilities:\n', 'capabilities:\n  shell:\n    allow: [bash]\n'),
        script: WORKER,
      },
      critic: { manifest: memberManifest('critic', { callee: true }), script: CRITIC },
    });
    formation = await runFormation(roster, home);
    // The console reads the formation's MURMUR_HOME, as `MURMUR_HOME=<home> mur console` would.
    await consoleStarting;
  });
  after(async () => {
    await consoleStarting?.catch(() => undefined);
    await close?.();
    formation?.mur.kill('SIGTERM');
    await formation?.mur.exited;
  });

  const formations = async (): Promise<ConsoleFormation[]> => {
    const answer = await fetch(`${consoleUrl}/api/formations`);
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('cache-control'), 'no-store');
    return ((await answer.json()) as ConsoleFormationsResponse).formations;
  };

  test('lists the formation with its three members in roster order, live, the entry marked', async () => {
    const [viewed] = await formations();
    assert.equal(viewed.key, `viewed-${formation.pid}`);
    assert.equal(viewed.state, 'live');
    assert.equal(viewed.entry, 'planner');
    assert.deepEqual(
      viewed.members.map((m) => [m.member, m.sessionId, m.url, m.entry, m.session]),
      formation.members.map((m) => [m.member, m.sessionId, m.url, m.member === 'planner', 'live']),
    );
    assert.deepEqual(viewed.calls, []);
  });

  test('a call in flight reads running with its caller, callee, tasks and tool call; then completed with its elapsed time', async () => {
    const started = Date.now();
    const task = await new MurmurClient(formation.member('planner').url).sendText('review the kite', { returnImmediately: true });
    const inFlight = await until(async () => {
      const [viewed] = await formations();
      const call = viewed.calls.find((c) => c.callee === 'worker');
      const critic = viewed.calls.find((c) => c.callee === 'critic');
      return call?.status === 'running' && critic?.memberTaskState === 'TASK_STATE_COMPLETED' ? { viewed, call, critic } : undefined;
    }, "the worker call running and the critic's task completed");
    const { call, critic } = inFlight;
    assert.equal(call.caller, 'planner');
    assert.equal(call.callerTaskId, task.id);
    assert.equal(call.callerSessionId, formation.member('planner').sessionId);
    assert.equal(call.calleeSessionId, formation.member('worker').sessionId);
    assert.match(call.memberTaskId ?? '', /^tsk_/);
    assert.equal(call.toolCallId, 'call_1');
    assert.equal(call.ended, false);
    assert.equal(call.elapsedMs, null);
    assert.equal(call.endedAt, null);
    assert.ok(Date.parse(call.startedAt) >= started - 1000 && Date.parse(call.startedAt) <= Date.now(), call.startedAt);
    assert.equal(call.memberTaskState, 'TASK_STATE_WORKING');
    // The caller records a call's end when it delivers the round's answers: critic's call still reads running.
    assert.equal(critic.status, 'running');
    assert.equal(critic.toolCallId, 'call_2');
    const worker = inFlight.viewed.members.find((m) => m.member === 'worker');
    assert.equal(worker?.tasks.TASK_STATE_WORKING, 1);

    const ended = await until(async () => (await formations())[0].calls.find((c) => c.callId === call.callId && c.ended), 'the worker call ended', 20_000);
    assert.equal(ended.status, 'completed');
    assert.equal(ended.memberTaskState, 'TASK_STATE_COMPLETED');
    assert.ok((ended.elapsedMs ?? 0) >= 2400, `elapsed ${ended.elapsedMs}`);
    assert.equal(Date.parse(ended.endedAt ?? '') - Date.parse(ended.startedAt), ended.elapsedMs);
    const [viewed] = await formations();
    assert.deepEqual(viewed.calls.map((c) => c.callee).sort(), ['critic', 'worker']);
    assert.equal(viewed.members.find((m) => m.member === 'worker')?.tasks.TASK_STATE_COMPLETED, 1);
  });

  test("the caller's record names the member task each call-member tool call started, and that task's record reads", async () => {
    const [viewed] = await formations();
    const call = viewed.calls.find((c) => c.callee === 'worker')!;
    const caller = await until(async () => {
      const page = (await (await fetch(`${consoleUrl}/api/records/tasks/${call.callerTaskId}`)).json()) as ConsoleTaskRecordPage;
      return page.task.state === 'TASK_STATE_COMPLETED' ? page : undefined;
    }, 'the caller completed');
    const toolCalls = caller.entries.filter((e): e is Extract<TaskRecordEntry, { kind: 'tool-call' }> => e.kind === 'tool-call');
    assert.deepEqual(
      toolCalls.map((e) => [e.tool, e.memberCall?.member, e.memberCall?.status]),
      [
        ['call-member', 'worker', 'completed'],
        ['call-member', 'critic', 'completed'],
      ],
    );
    const workerCall = toolCalls[0].memberCall!;
    assert.equal(workerCall.callId, call.callId);
    assert.equal(workerCall.memberTaskId, call.memberTaskId);
    assert.equal(workerCall.memberSessionId, formation.member('worker').sessionId);
    assert.equal(workerCall.memberUrl, formation.member('worker').url);
    assert.equal(workerCall.elapsedMs, call.elapsedMs);
    // The wait for the answer starts when the call did (issue 37): the formations API and the record agree.
    assert.equal(workerCall.startedAt, call.startedAt);
    const member = (await (await fetch(`${consoleUrl}/api/records/tasks/${workerCall.memberTaskId}`)).json()) as ConsoleTaskRecordPage;
    assert.equal(member.task.sessionId, formation.member('worker').sessionId);
    assert.deepEqual(
      member.entries.filter((e) => e.kind === 'turn' || e.kind === 'tool-call').map((e) => e.kind),
      ['turn', 'tool-call', 'turn'],
    );
    const exported = await (await fetch(`${consoleUrl}/api/records/tasks/${call.callerTaskId}/export`)).text();
    assert.match(exported, new RegExp(`"memberCall":\\{"callId":"${call.callId}"`));
  });

  test('a bash tool call carries no memberCall', async () => {
    const [viewed] = await formations();
    const call = viewed.calls.find((c) => c.callee === 'worker')!;
    const member = (await (await fetch(`${consoleUrl}/api/records/tasks/${call.memberTaskId}`)).json()) as ConsoleTaskRecordPage;
    const bash = member.entries.find((e) => e.kind === 'tool-call');
    assert.ok(bash && !('memberCall' in bash));
  });

  test('a call to a busy member reads offering with its offers, then running once taken, then completed', async () => {
    await new MurmurClient(formation.member('worker').url).sendText('keep busy', { returnImmediately: true });
    const task = await new MurmurClient(formation.member('planner').url).sendText('review again', { returnImmediately: true });
    const mine = async () => (await formations())[0].calls.find((c) => c.callerTaskId === task.id && c.callee === 'worker');
    const offering = await until(async () => ((await mine())?.status === 'offering' ? mine() : undefined), 'the call offering');
    assert.equal(offering?.memberTaskId, null);
    assert.equal(offering?.memberTaskState, null);
    assert.equal(offering?.toolCallId, 'call_1');
    const taken = await until(async () => ((await mine())?.status === 'running' ? mine() : undefined), 'the call taken', 20_000);
    assert.ok((taken?.offers ?? 0) >= 2, `offers ${taken?.offers}`);
    assert.match(taken?.memberTaskId ?? '', /^tsk_/);
    const ended = await until(async () => ((await mine())?.ended ? mine() : undefined), 'the call ended', 20_000);
    assert.equal(ended?.status, 'completed');
    assert.equal(ended?.offers, taken?.offers);
  });

  test('a stopped member reads ended; the supervisor gone reads the formation stale', async () => {
    formation.mur.kill('SIGKILL');
    await formation.mur.exited;
    try {
      process.kill(formation.member('critic').pid, 'SIGTERM');
    } catch {
      // a member may stop with its supervisor
    }
    const [viewed] = await until(
      async () => {
        const list = await formations();
        return list[0]?.members.find((m) => m.member === 'critic')?.session === 'ended' ? list : undefined;
      },
      'critic ended',
      20_000,
    );
    assert.equal(viewed.state, 'stale');
    assert.equal(viewed.calls.length, 4, 'the calls stay readable from the traces');
    for (const m of formation.members) {
      try {
        process.kill(m.pid, 'SIGTERM');
      } catch {
        // already gone with its supervisor
      }
    }
  });

  test('reads this host’s formations for a loopback peer only: another peer gets the added doors’ formations alone', async (t) => {
    const outside = Object.values(os.networkInterfaces())
      .flat()
      .find((i) => i && !i.internal && i.family === 'IPv4')?.address;
    if (!outside) return t.skip('no non-loopback IPv4 address on this host');
    const listed = await fetch(`${consoleUrl.replace('127.0.0.1', outside)}/api/formations`);
    assert.equal(listed.status, 200);
    assert.deepEqual(await listed.json(), { formations: [] }, 'the registered formation is not read for it (this console adds no door)');
    const answer = await fetch(`${consoleUrl.replace('127.0.0.1', outside)}/api/formations/elsewhere`);
    assert.equal(answer.status, 403);
    assert.deepEqual(await answer.json(), {
      error: 'not_loopback',
      message: `mur console reads this machine's records and formations for a loopback peer only, not for ${outside}`,
    });
  });
});
