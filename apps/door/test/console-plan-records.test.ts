/**
 * A plan on the console's record (docs/console.md, "Plans"): the submit-plan tool call's entry carries its steps from
 * the plan_step records, read by `mur console`'s record API from real doors — examples/plan (three steps, the last
 * reading the first two) and a plan whose second step fails (the third skipped).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { ConsoleTaskRecordPage, TaskRecordEntry } from '@murmur/protocol';
import { startTestConsole } from './support/console.js';
import { taskOf } from './support/assertions.js';
import { type DoorProcess, makeCapsule, manifestYaml, runDoor, tempDir } from './support/door-process.js';
import { send } from './support/rpc.js';

const EXAMPLE = fileURLToPath(new URL('../../../../examples/plan/', import.meta.url));
const FAILING = `
rules:
  - match: '^failing'
    turns:
      - tools:
          - tool: submit-plan
            input:
              steps:
                - { id: one, tool: bash, input: { command: "sleep 0.1; echo first" } }
                - { id: two, tool: bash, input: { command: "echo broken >&2; exit 3" } }
                - { id: three, tool: bash, input: { command: "echo never" } }
        answer: done
default:
  turns:
    - answer: no rule
`;

type ToolCallEntry = Extract<TaskRecordEntry, { kind: 'tool-call' }>;

describe('a plan on the record API', () => {
  const home = tempDir('home');
  const doors: DoorProcess[] = [];
  const ids: Record<string, string> = {};
  let consoleUrl: string;
  let close: () => Promise<void>;
  // mur console starts beside the doors: it reads the home on each request, so nothing needs to exist before it.
  let consoleStarting: Promise<void> | undefined;

  before(async () => {
    consoleStarting = startTestConsole(home).then((started) => {
      consoleUrl = started.url;
      close = started.close;
    });
    const example = await runDoor(EXAMPLE, [], home);
    doors.push(example);
    ids.report = taskOf(await send(example.url, 'Write me a host report')).id;
    const failing = await runDoor(makeCapsule(manifestYaml({ name: 'failing-plan', extra: '  plan:\n    submit: true' }), FAILING), [], home);
    doors.push(failing);
    ids.failing = taskOf(await send(failing.url, 'failing plan')).id;
    await consoleStarting;
  });
  after(async () => {
    await consoleStarting?.catch(() => undefined);
    await close?.();
    for (const door of doors) await door.stop();
  });

  const planCall = async (taskId: string): Promise<{ page: ConsoleTaskRecordPage; call: ToolCallEntry }> => {
    const answer = await fetch(`${consoleUrl}/api/records/tasks/${taskId}`);
    assert.equal(answer.status, 200);
    const page = (await answer.json()) as ConsoleTaskRecordPage;
    const calls = page.entries.filter((e): e is ToolCallEntry => e.kind === 'tool-call');
    assert.deepEqual(
      calls.map((c) => c.tool),
      ['submit-plan'],
      'the plan is one tool call',
    );
    return { page, call: calls[0] };
  };

  test('examples/plan: one submit-plan entry with its three steps, in order, each passed with its output and exit code, inside the call’s span', async () => {
    const { page, call } = await planCall(ids.report);
    assert.equal(page.task.toolCalls, 1);
    const steps = call.planSteps ?? [];
    assert.deepEqual(
      steps.map((s) => [s.index, s.id, s.tool, s.capsule, s.status, s.exitCode]),
      [
        [1, 'today', 'bash', null, 'passed', 0],
        [2, 'system', 'bash', null, 'passed', 0],
        [3, 'report', 'bash', null, 'passed', 0],
      ],
    );
    assert.match(steps[0].output, /^<untrusted-content source=tool:bash>\n\$ date -u \+%Y-%m-%d\nExit code: 0\nStdout:\n\d{4}-\d\d-\d\d\n/);
    assert.match(steps[2].output, /Stdout:\n# Host report\n\nDate: \d{4}-\d\d-\d\d\nSystem: \w+\n/);
    assert.deepEqual(steps[0].input, { command: 'date -u +%Y-%m-%d' });
    const callEnd = call.offsetMs + (call.durationMs ?? 0);
    let previousEnd = call.offsetMs;
    for (const s of steps) {
      assert.equal(Date.parse(s.at) - Date.parse(page.task.createdAt), s.offsetMs);
      assert.ok(s.offsetMs >= previousEnd - 1, `step ${s.id} starts after the one before it ended (${s.offsetMs} < ${previousEnd})`);
      previousEnd = s.offsetMs + s.durationMs;
    }
    assert.ok(previousEnd <= callEnd + 1, `the steps end within the call (${previousEnd} > ${callEnd})`);
  });

  test('a failing plan: the failed step with its exit code and output, the next skipped with no input; the NDJSON export carries them too', async () => {
    const { call } = await planCall(ids.failing);
    assert.equal(call.status, 'error');
    const steps = call.planSteps ?? [];
    assert.deepEqual(
      steps.map((s) => [s.id, s.status, s.exitCode]),
      [
        ['one', 'passed', 0],
        ['two', 'failed', 3],
        ['three', 'skipped', null],
      ],
    );
    assert.ok(steps[0].durationMs >= 100, `one slept 0.1 s: ${steps[0].durationMs}`);
    assert.match(steps[1].output, /Exit code: 3\nStdout:\n\nStderr:\nbroken\n/);
    assert.equal(steps[2].input, null);
    assert.equal(steps[2].output, '');
    assert.equal(steps[2].durationMs, 0);
    const ndjson = await (await fetch(`${consoleUrl}/api/records/tasks/${ids.failing}/export`)).text();
    const exported = ndjson
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { kind: string; tool?: string; planSteps?: { id: string }[] })
      .find((l) => l.kind === 'tool-call' && l.tool === 'submit-plan');
    assert.deepEqual(
      exported?.planSteps?.map((s) => s.id),
      ['one', 'two', 'three'],
    );
  });
});
