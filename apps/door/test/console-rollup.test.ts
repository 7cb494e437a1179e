/**
 * The rollups of the record API (docs/console.md, "Where the time and the tokens went"): against real doors and a
 * real mur console, a session's and several sessions' rollup equals what their records hold, with the tasks table's
 * filters.
 */
import assert from 'node:assert/strict';
import { readdirSync, readlinkSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { type ConsoleRollup, type ConsoleTaskRecordPage, type ConsoleTaskSummariesPage, type TaskRecordEntry, taskTimeSplit } from '@murmur/protocol';
import { startTestConsole } from './support/console.js';
import { type DoorProcess, makeCapsule, manifestYaml, runDoor, tempDir } from './support/door-process.js';
import { send } from './support/rpc.js';

const SCRIPT = `
rules:
  - match: '^build'
    turns:
      - usage: { input: 120, output: 12, cached: 100 }
        tools:
          - tool: bash
            input: { command: "sleep 0.1; echo built" }
      - usage: { input: 150, output: 20, cached: 120 }
        answer: "{{tool.stdout}}"
  - match: '^deploy'
    turns:
      - usage: { input: 80, output: 5 }
        ask: Which branch?
      - answer: "deployed {{reply}}"
default:
  turns:
    - usage: { input: 10, output: 1, cached: 0 }
      answer: no rule
`;

describe('the rollups', () => {
  const home = tempDir('home');
  let first: DoorProcess;
  let second: DoorProcess;
  let consoleUrl: string;
  let consolePid: number;
  let close: () => Promise<void>;
  // mur console starts beside the doors: it reads the home on each request, so nothing needs to exist before it.
  let consoleStarting: Promise<void> | undefined;

  before(async () => {
    consoleStarting = startTestConsole(home).then((started) => {
      consoleUrl = started.url;
      consolePid = started.pid;
      close = started.close;
    });
    first = await runDoor(makeCapsule(manifestYaml({ name: 'rollup-one' }), SCRIPT), [], home);
    await send(first.url, 'build the kite');
    await send(first.url, 'build the boat');
    const deploy = (await send(first.url, 'deploy please')).json.result.task.id;
    await send(first.url, 'main', { taskId: deploy });
    await send(first.url, 'hello');
    await first.stop();
    second = await runDoor(makeCapsule(manifestYaml({ name: 'rollup-two' }), SCRIPT), [], home);
    await send(second.url, 'build the cart');
    await send(second.url, 'deploy now'); // left waiting for its reply
    await consoleStarting;
  });
  after(async () => {
    await consoleStarting?.catch(() => undefined);
    await close?.();
    await second?.stop();
  });

  const get = async <T>(p: string): Promise<T> => {
    const answer = await fetch(`${consoleUrl}${p}`);
    assert.equal(answer.status, 200, `${p}: ${await answer.clone().text()}`);
    return (await answer.json()) as T;
  };

  /** What the records hold of a session's tasks kept by `filter`, counted from the tasks and record pages. */
  async function counted(sessionId: string, filter = '') {
    const page = await get<ConsoleTaskSummariesPage>(`/api/records/sessions/${sessionId}/tasks?limit=1000${filter}`);
    const tokens = { input: 0, output: 0, cached: 0 };
    const byState: Record<string, number> = {};
    let turns = 0;
    let modelMs = 0;
    let toolMs = 0;
    let inputMs = 0;
    for (const task of page.tasks) {
      byState[task.state] = (byState[task.state] ?? 0) + 1;
      const record = await get<ConsoleTaskRecordPage>(`/api/records/tasks/${task.taskId}?limit=1000`);
      const entries: TaskRecordEntry[] = record.entries;
      for (const e of entries) {
        if (e.kind !== 'turn') continue;
        turns += 1;
        tokens.input += e.inputTokens ?? 0;
        tokens.output += e.outputTokens ?? 0;
        tokens.cached += e.cachedTokens ?? 0;
      }
      const split = taskTimeSplit(entries, task.durationMs ?? 0);
      modelMs += split.modelMs;
      toolMs += split.toolMs;
      if (task.durationMs !== null) inputMs += split.inputMs;
    }
    return { total: page.total, byState, tokens, turns, modelMs, toolMs, inputMs };
  }

  test('a session’s rollup equals what its records hold: tasks by state, turns, tokens, time in model and tool calls', async () => {
    const rollup = await get<ConsoleRollup>(`/api/records/sessions/${first.sessionId}/rollup`);
    const records = await counted(first.sessionId);
    assert.equal(rollup.tasks, 4);
    assert.equal(rollup.tasks, records.total);
    assert.deepEqual(rollup.byState, records.byState);
    assert.deepEqual(rollup.byState, { TASK_STATE_COMPLETED: 4 });
    assert.equal(rollup.turns, records.turns);
    assert.deepEqual(rollup.tokens, records.tokens);
    assert.deepEqual(rollup.tokens, { input: 2 * 270 + 80 + 10, output: 2 * 32 + 5 + 1, cached: 2 * 220 });
    assert.equal(rollup.unreportedTurns, 1, 'the deploy task’s second turn reports no usage');
    assert.equal(rollup.time.modelMs, records.modelMs);
    assert.equal(rollup.time.toolMs, records.toolMs);
    assert.equal(rollup.time.inputMs, records.inputMs);
    assert.ok(rollup.time.inputMs > 0, 'the deploy task waited for its reply');
    assert.equal(rollup.duration.count, 4);
    assert.equal(
      rollup.buckets.reduce((n, b) => n + b.tasks, 0),
      4,
    );
    const bash = rollup.tools.find((t) => t.tool === 'bash');
    assert.equal(bash?.calls, 2);
    assert.ok((bash?.p50 ?? 0) >= 100, 'each bash call slept 0.1 s');
    assert.deepEqual(rollup.sessionIds, [first.sessionId]);
  });

  test('a rollup reads each session’s trace through one handle and closes it: the console holds no more files after it', async () => {
    const traces = () =>
      readdirSync(`/proc/${consolePid}/fd`).filter((fd) => {
        try {
          return readlinkSync(`/proc/${consolePid}/fd/${fd}`).endsWith('/trace.jsonl');
        } catch {
          return false;
        }
      }).length;
    const before = traces();
    for (let i = 0; i < 3; i++) await get<ConsoleRollup>(`/api/records/sessions/${first.sessionId}/rollup`);
    assert.equal(traces(), before);
  });

  test('the tasks table’s filters keep the same tasks: a search, a state', async () => {
    const built = await get<ConsoleRollup>(`/api/records/sessions/${first.sessionId}/rollup?q=build`);
    const records = await counted(first.sessionId, '&q=build');
    assert.equal(built.tasks, 2);
    assert.equal(built.tasks, records.total);
    assert.deepEqual(built.tokens, records.tokens);
    assert.equal(built.filters.q, 'build');
    const waiting = await get<ConsoleRollup>(`/api/records/sessions/${second.sessionId}/rollup?state=TASK_STATE_INPUT_REQUIRED`);
    assert.equal(waiting.tasks, 1);
    assert.deepEqual(waiting.byState, { TASK_STATE_INPUT_REQUIRED: 1 });
    assert.equal(waiting.duration.count, 0, 'a task still waiting has no duration yet');
    assert.ok(waiting.time.inputMs > 0, 'it counts its wait until the rollup was read');
    const none = await get<ConsoleRollup>(`/api/records/sessions/${first.sessionId}/rollup?since=2999-01-01T00:00:00Z`);
    assert.equal(none.tasks, 0);
    assert.deepEqual(none.buckets, []);
  });

  test('several sessions’ rollup (a formation’s members) sums theirs; unknown and malformed ids are named missing', async () => {
    const one = await get<ConsoleRollup>(`/api/records/sessions/${first.sessionId}/rollup`);
    const two = await get<ConsoleRollup>(`/api/records/sessions/${second.sessionId}/rollup`);
    const unknown = `ses_${'0'.repeat(32)}`;
    const both = await get<ConsoleRollup>(`/api/records/rollup?sessions=${first.sessionId},${second.sessionId},${unknown},nonsense`);
    assert.deepEqual(both.sessionIds, [first.sessionId, second.sessionId]);
    assert.deepEqual(both.missing, [unknown, 'nonsense']);
    assert.equal(both.tasks, one.tasks + two.tasks);
    assert.equal(both.tasks, 6);
    assert.equal(both.turns, one.turns + two.turns);
    for (const key of ['input', 'output', 'cached'] as const) assert.equal(both.tokens[key], one.tokens[key] + two.tokens[key]);
  });

  test('an unknown session’s rollup answers 404 not_found', async () => {
    const answer = await fetch(`${consoleUrl}/api/records/sessions/ses_${'0'.repeat(32)}/rollup`);
    assert.equal(answer.status, 404);
    assert.equal(((await answer.json()) as { error: string }).error, 'not_found');
  });
});
