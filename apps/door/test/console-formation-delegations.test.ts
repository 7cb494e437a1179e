/**
 * `GET /api/formations`'s delegations (docs/console.md, "Formations"): a real two-member formation whose worker,
 * serving planner's call, delegates to a sub-capsule; the delegation reads running, then completed, with the
 * delegating member and task (the member task planner's call started) and the delegate-task tool call that made it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MurmurClient } from '@murmur/client';
import {
  type ConsoleFormation,
  type ConsoleFormationsResponse,
  type ConsoleTaskRecordPage,
  RECORD_CALLS_SUFFIX,
  type RecordMemberCallsResponse,
  RECORDS_PLANE_PATH,
} from '@murmur/protocol';
import { startTestConsole } from './support/console.js';
import { until } from './support/client-cli.js';
import { tempDir } from './support/door-process.js';
import { type FormationProcess, makeFormation, memberManifest, runFormation } from './support/formation.js';

const PLANNER = `
default:
  turns:
    - tools:
        - tool: call-member
          input: { member: worker, task: "look into {{task.text}}" }
      answer: waiting
    - answer: "{{continuation}}"
`;

const WORKER = `
default:
  turns:
    - tools:
        - tool: delegate-task
          input: { capsule: helper, task: "find {{task.text}}" }
      answer: waiting
    - answer: "worker: {{continuation}}"
`;

const HELPER_MANIFEST = [
  'name: helper',
  'version: 0.1.0',
  'lifecycle:',
  '  task_acceptance: single',
  'inference:',
  '  driver: script',
  '  script: script.yaml',
  '  max_turns: 4',
  '',
].join('\n');
const HELPER = `
default:
  turns:
    - sleep_ms: 2000
      answer: "helper: found it"
`;

const ROSTER = `name: delegating
entry: planner
members:
  planner: { capsule: ./planner }
  worker: { capsule: ./worker }
rules:
  - from: planner
    to: [worker]
`;

describe("the formation view API's delegations", () => {
  const home = tempDir('home');
  let formation: FormationProcess;
  let consoleUrl: string;
  let close: () => Promise<void>;
  // mur console starts beside the doors: it reads the home on each request, so nothing needs to exist before it.
  let consoleStarting: Promise<void> | undefined;

  before(async () => {
    consoleStarting = startTestConsole(home).then((started) => {
      consoleUrl = started.url;
      close = started.close;
    });
    const roster = makeFormation(ROSTER, {
      planner: { manifest: memberManifest('planner', { acceptance: 'queue', lifecycle: ['delegation_deadline_secs: 60'] }), script: PLANNER },
      worker: {
        manifest: memberManifest('worker', { callee: true, lifecycle: ['delegation_deadline_secs: 60'] }).replace(
          'capabilities:\n',
          'capabilities:\n  spawn:\n    allow: [../helper]\n',
        ),
        script: WORKER,
      },
      // Not a member: the sub-capsule worker may delegate to, beside the members.
      helper: { manifest: HELPER_MANIFEST, script: HELPER },
    });
    formation = await runFormation(roster, home);
    await consoleStarting;
  });
  after(async () => {
    await consoleStarting?.catch(() => undefined);
    await close?.();
    formation?.mur.kill('SIGTERM');
    await formation?.mur.exited;
  });

  const formations = async (): Promise<ConsoleFormation[]> =>
    ((await (await fetch(`${consoleUrl}/api/formations`)).json()) as ConsoleFormationsResponse).formations;

  test('none before any task', async () => {
    const [viewed] = await formations();
    assert.deepEqual(viewed.delegations, []);
  });

  test("a delegation reads running, then completed; it names the member, the member task planner's call started, and its tool call", async () => {
    await new MurmurClient(formation.member('planner').url).sendText('the kite', { returnImmediately: true });
    const running = await until(
      async () => {
        const [viewed] = await formations();
        const d = viewed.delegations[0];
        return d?.status === 'running' ? { viewed, d } : undefined;
      },
      'the delegation running',
      30_000,
    );
    const { d } = running;
    assert.match(d.delegationId, /^dlg_/);
    assert.equal(d.member, 'worker');
    assert.equal(d.sessionId, formation.member('worker').sessionId);
    assert.equal(d.capsule, 'helper');
    assert.match(d.childSessionId, /^ses_/);
    assert.match(d.childTaskId, /^tsk_/);
    assert.equal(d.ended, false);
    assert.equal(d.endedAt, null);
    assert.equal(d.elapsedMs, null);
    // The delegating task is the member task planner's call started: the console nests one under the other.
    const call = running.viewed.calls.find((c) => c.callee === 'worker');
    assert.equal(d.taskId, call?.memberTaskId);

    const ended = await until(
      async () => (await formations())[0].delegations.find((x) => x.delegationId === d.delegationId && x.ended),
      'the delegation ended',
      30_000,
    );
    assert.equal(ended.status, 'completed');
    assert.equal(Date.parse(ended.endedAt ?? '') - Date.parse(ended.startedAt), ended.elapsedMs);
    assert.equal(ended.startedAt, d.startedAt);
    // Its tool call is the delegate-task entry of the worker's record.
    const record = (await (await fetch(`${consoleUrl}/api/records/tasks/${ended.taskId}`)).json()) as ConsoleTaskRecordPage;
    const delegateTask = record.entries.find((e) => e.kind === 'tool-call' && e.tool === 'delegate-task');
    assert.ok(delegateTask?.kind === 'tool-call');
    assert.equal(ended.toolCallId, delegateTask.toolCallId);
    assert.match(delegateTask.output ?? '', new RegExp(ended.delegationId));
  });

  test("mur console on another host reads the delegation from the worker's door: the same delegation as on the formation's host", async () => {
    const [onHost] = await formations();
    const doors = ['planner', 'worker'].map((name) => ({ url: formation.member(name).url }));
    const elsewhere = await startTestConsole(tempDir('console-home'), { doors });
    try {
      const { formations: found } = (await (await fetch(`${elsewhere.url}/api/formations`)).json()) as ConsoleFormationsResponse;
      assert.deepEqual(
        found.map((f) => [f.key, f.source, f.members.map((m) => m.records)]),
        [[`delegating-${formation.pid}@127.0.0.1`, 'doors', ['door', 'door']]],
      );
      assert.equal(onHost.delegations.length, 1);
      assert.deepEqual(found[0].delegations, onHost.delegations);
      // The worker's door serves it under its calls, named by the session's capsule.
      const { delegations } = (await (
        await fetch(`${formation.member('worker').url}${RECORDS_PLANE_PATH}${RECORD_CALLS_SUFFIX}`)
      ).json()) as RecordMemberCallsResponse;
      assert.deepEqual(delegations, onHost.delegations);
    } finally {
      await elsewhere.close();
    }
  });
});
