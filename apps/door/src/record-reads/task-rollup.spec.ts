import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ROLLUP_BUCKETS_MAX,
  ROLLUP_OTHER_TOOLS,
  ROLLUP_TOOL_NAMES_MAX,
  type TaskRecordEntry,
  type TaskRecordSummary,
  type TaskState,
  taskTimeSplit,
} from '@murmur/protocol';
import { LogHistogram } from './log-histogram.js';
import { bucketsFor, type RollupTask, rollupTasks } from './task-rollup.js';

const T0 = Date.UTC(2026, 11, 1, 10, 0, 0);
const at = (offsetMs: number) => ({ at: new Date(T0 + offsetMs).toISOString(), offsetMs });
const turn = (offsetMs: number, durationMs: number, tokens: [number, number, number] | null): TaskRecordEntry => ({
  kind: 'turn',
  ...at(offsetMs),
  turn: 1,
  durationMs,
  firstTokenMs: null,
  inputTokens: tokens?.[0] ?? null,
  outputTokens: tokens?.[1] ?? null,
  cachedTokens: tokens?.[2] ?? null,
  stopReason: null,
});
const tool = (offsetMs: number, name: string, durationMs: number | null, status: 'passed' | 'error' = 'passed'): TaskRecordEntry => ({
  kind: 'tool-call',
  ...at(offsetMs),
  toolCallId: `call_${offsetMs}`,
  tool: name,
  input: null,
  output: null,
  exitCode: null,
  status,
  durationMs,
});

function summary(n: number, state: TaskState, createdOffsetMs: number, durationMs: number | null, turns = 0, toolCalls = 0): TaskRecordSummary {
  return {
    taskId: `tsk_${n}`,
    contextId: 'ctx_1',
    sessionId: 'ses_1',
    state,
    createdAt: new Date(T0 + createdOffsetMs).toISOString(),
    updatedAt: new Date(T0 + createdOffsetMs + (durationMs ?? 0)).toISOString(),
    input: null,
    answer: null,
    statusText: null,
    durationMs,
    turns,
    toolCalls,
  };
}
const task = (s: TaskRecordSummary, entries: TaskRecordEntry[]): RollupTask => ({ summary: s, entries: async () => entries });
const context = { sessionIds: ['ses_1'], missing: [], filters: { q: '', state: '', contextId: '', since: '' }, readAtMs: T0 + 60_000 };

test('a task’s time splits into model calls, tool calls, members, input and the rest, which add up to its wall time', () => {
  const entries: TaskRecordEntry[] = [
    { kind: 'input', ...at(0), text: 'go', attachments: [] },
    turn(10, 100, [50, 5, 20]),
    tool(110, 'bash', 40),
    tool(150, 'call-member', 300),
    { kind: 'input-required', ...at(460), prompt: 'which?' },
    { kind: 'reply', ...at(960), text: 'that' },
    turn(970, 30, null),
    { kind: 'end', ...at(1000), state: 'TASK_STATE_COMPLETED', status: null },
  ];
  const split = taskTimeSplit(entries, 1000);
  assert.deepEqual(split, { wallMs: 1000, modelMs: 130, toolMs: 40, memberMs: 300, inputMs: 500, otherMs: 30 });
  // A task waiting now counts its wait to the wall time's end; an end closes a wait no reply answered.
  assert.equal(taskTimeSplit([{ kind: 'input-required', ...at(200), prompt: '?' }], 900).inputMs, 700);
  assert.equal(
    taskTimeSplit(
      [
        { kind: 'input-required', ...at(200), prompt: '?' },
        { kind: 'end', ...at(500), state: 'TASK_STATE_CANCELED', status: null },
      ],
      900,
    ).inputMs,
    300,
  );
  // Overlapping parts count once, for the first that claims the instant (model, tool, member, input); a part past the
  // wall time is cut at it, so the parts always add up to the wall time.
  assert.deepEqual(taskTimeSplit([turn(0, 800, null), tool(400, 'bash', 800)], 1000), {
    wallMs: 1000,
    modelMs: 800,
    toolMs: 200,
    memberMs: 0,
    inputMs: 0,
    otherMs: 0,
  });
});

test('a caller waits for a member’s answer from the call’s start to its elapsed time, past its call-member tool call', () => {
  // Issue 37: the tool call returned after 19 ms, the answer came with the round's 556 ms after the call started.
  const call = {
    ...tool(100, 'call-member', 19),
    memberCall: {
      callId: 'mcl_1',
      member: 'worker',
      memberTaskId: 'tsk_w',
      memberSessionId: null,
      memberUrl: null,
      status: 'completed' as const,
      startedAt: at(100).at,
      elapsedMs: 556,
      offers: 1,
    },
  };
  const entries: TaskRecordEntry[] = [turn(0, 100, null), call, turn(700, 50, null), { kind: 'end', ...at(750), state: 'TASK_STATE_COMPLETED', status: null }];
  assert.deepEqual(taskTimeSplit(entries, 750), { wallMs: 750, modelMs: 150, toolMs: 0, memberMs: 556, inputMs: 0, otherMs: 44 });
  // A call still in flight waits until the wall time's end; a delegation is waited for like a member.
  const inFlight = { ...call, memberCall: { ...call.memberCall, status: 'running' as const, elapsedMs: null } };
  assert.equal(taskTimeSplit([turn(0, 100, null), inFlight], 1000).memberMs, 900);
  const delegation: TaskRecordEntry = {
    kind: 'delegation',
    ...at(200),
    delegationId: 'dlg_1',
    capsule: 'helper',
    childSessionId: 'ses_c',
    childTaskId: 'tsk_c',
    toolCallId: null,
    status: 'completed',
    durationMs: 300,
  };
  assert.equal(taskTimeSplit([delegation], 1000).memberMs, 300);
});

test('the rollup’s totals are the sums of its tasks’ summaries and entries', async () => {
  const tasks = [
    task(summary(1, 'TASK_STATE_COMPLETED', 0, 1000, 2, 2), [
      turn(0, 100, [100, 10, 40]),
      tool(100, 'bash', 50),
      turn(200, 100, [120, 12, 0]),
      tool(300, 'call-member', 400, 'error'),
    ]),
    task(summary(2, 'TASK_STATE_FAILED', 2000, 500, 1, 1), [turn(0, 200, null), tool(200, 'bash', 150)]),
    task(summary(3, 'TASK_STATE_WORKING', 4000, null, 1, 0), [turn(0, 300, [7, 3, 1])]),
  ];
  const rollup = await rollupTasks(tasks, context);
  assert.equal(rollup.tasks, 3);
  assert.deepEqual(rollup.byState, { TASK_STATE_COMPLETED: 1, TASK_STATE_FAILED: 1, TASK_STATE_WORKING: 1 });
  assert.equal(rollup.turns, 4);
  assert.equal(rollup.toolCalls, 3);
  assert.deepEqual(rollup.tokens, { input: 227, output: 25, cached: 41 });
  assert.equal(rollup.unreportedTurns, 1);
  // The running task's wall time runs to readAt (60 s after T0, it was created at +4 s).
  assert.deepEqual(rollup.time, { wallMs: 1000 + 500 + 56_000, modelMs: 700, toolMs: 200, memberMs: 400, inputMs: 0, otherMs: 350 + 150 + 55_700 });
  assert.deepEqual(rollup.duration, { count: 2, p50: 500, p90: 1000, p99: 1000, max: 1000 });
  assert.equal(rollup.tokensPerTask.count, 3);
  assert.equal(rollup.tokensPerTask.max, 242);
  const bash = rollup.tools.find((t) => t.tool === 'bash');
  assert.deepEqual(bash, { tool: 'bash', calls: 2, errors: 0, totalMs: 200, p50: 50, p90: 150, max: 150 });
  assert.deepEqual(
    rollup.tools.map((t) => t.tool),
    ['call-member', 'bash'],
    'the slowest p90 first',
  );
  assert.equal(rollup.tools[0]?.errors, 1);
  // 1 s buckets over 0–4 s: five, the empty ones kept; each bucket's figures are its tasks'.
  assert.equal(rollup.bucketMs, 1000);
  assert.deepEqual(
    rollup.buckets.map((b) => b.tasks),
    [1, 0, 1, 0, 1],
  );
  assert.deepEqual(rollup.buckets[0]?.tokens, { input: 220, output: 22, cached: 40 });
  assert.deepEqual(rollup.buckets[2]?.duration, { count: 1, p50: 500, p90: 500 });
  assert.equal(
    rollup.buckets.reduce((n, b) => n + b.tasks, 0),
    rollup.tasks,
  );
});

test('no task: an empty rollup with no buckets', async () => {
  const rollup = await rollupTasks([], context);
  assert.equal(rollup.tasks, 0);
  assert.equal(rollup.bucketMs, null);
  assert.deepEqual(rollup.buckets, []);
  assert.deepEqual(rollup.duration, { count: 0, p50: null, p90: null, p99: null, max: null });
});

test('percentiles are by nearest rank, at most 4.4 % above the exact value and never above the largest', () => {
  const values = Array.from({ length: 5000 }, (_, i) => Math.floor(((i * 7919) % 5000) ** 1.7));
  const histogram = new LogHistogram();
  for (const v of values) histogram.add(v);
  const sorted = [...values].sort((a, b) => a - b);
  for (const p of [1, 50, 90, 99, 100]) {
    const exact = sorted[Math.ceil((p / 100) * sorted.length) - 1] ?? 0;
    const read = histogram.percentile(p) ?? Number.NaN;
    assert.ok(read >= exact && read <= Math.max(exact * 1.044, exact), `p${p}: ${read} for the exact ${exact}`);
  }
  assert.equal(histogram.percentile(100), sorted.at(-1));
  const zeros = new LogHistogram();
  zeros.add(0);
  zeros.add(0);
  assert.deepEqual(zeros.summary(), { count: 2, p50: 0, p90: 0, p99: 0, max: 0 });
});

test('buckets: the smallest width that makes at most 48, starting at a multiple of it', () => {
  assert.deepEqual(bucketsFor(T0 + 300, T0 + 10_000), { bucketMs: 1000, startMs: T0, count: 11 });
  const hour = bucketsFor(T0, T0 + 47 * 60_000);
  assert.equal(hour.bucketMs, 60_000);
  const day = bucketsFor(T0, T0 + 24 * 3_600_000);
  assert.equal(day.bucketMs, 3_600_000);
  assert.equal(day.count, 25);
  assert.ok(bucketsFor(0, 1e13).count <= ROLLUP_BUCKETS_MAX);
});

test('the tools told apart are bounded: names past the 200th count as other tools', async () => {
  const entries = Array.from({ length: ROLLUP_TOOL_NAMES_MAX + 50 }, (_, i) => tool(i, `tool-${i}`, i === ROLLUP_TOOL_NAMES_MAX + 10 ? 1_000_000 : 1));
  const rollup = await rollupTasks([task(summary(1, 'TASK_STATE_COMPLETED', 0, 10, 0, entries.length), entries)], context);
  assert.equal(rollup.tools[0]?.tool, ROLLUP_OTHER_TOOLS);
  assert.equal(rollup.tools[0]?.calls, 50);
  assert.equal(rollup.tools.length, 10);
});
