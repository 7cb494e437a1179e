import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TaskRecordEntry } from '@murmur/protocol';
import { recordEntries } from './task-records.js';
import type { StoredTask } from '../records/task-table.js';
import { decodeTraceLine } from '../records/trace-lines.js';
import type { TraceLine, TraceType } from '../records/trace-schema.js';

const T0 = Date.UTC(2026, 11, 1, 10, 0, 0);
const ts = (ms: number) => new Date(T0 + ms).toISOString();
/** A record as the reader gets it: written as a line of trace.jsonl and decoded against the schema. */
function rec(ms: number, type: TraceType, fields: Record<string, unknown> = {}): TraceLine {
  const line = decodeTraceLine(JSON.stringify({ ts: ts(ms), type, task_id: 'tsk_p', ...fields }));
  assert.ok(typeof line !== 'string', `the ${type} fixture is off the schema (${line})`);
  return line;
}
const row = { id: 'tsk_p', createdAtMs: T0, response: null } as StoredTask;
/** The task's task_start at 0 ms: an operator's trusted "go". */
const started = (contextId = 'ctx_p', messageId = 'msg_p') =>
  rec(0, 'task_start', {
    context_id: contextId,
    message_id: messageId,
    origin: 'operator',
    trust: 'trusted',
    text_chars: 2,
    text: 'go',
    references: [],
    attachments: [],
  });
const step = (ms: number, callId: string, fields: Record<string, unknown>) =>
  rec(ms, 'plan_step', { tool_call_id: callId, exit_code: null, input: null, output: '', door_task_id: null, ...fields });
const toolCall = (ms: number, callId: string, tool: string, durationMs: number) =>
  rec(ms, 'tool_call', { tool_call_id: callId, tool, duration_ms: durationMs, status: 'passed', exit_code: null, input: {}, output: '…' });
type ToolCallEntry = Extract<TaskRecordEntry, { kind: 'tool-call' }>;
const calls = (entries: TaskRecordEntry[]) => entries.filter((e): e is ToolCallEntry => e.kind === 'tool-call');

test('a submit-plan tool call carries its plan steps, each timed from its plan_step record; the plan records are no entries of their own', () => {
  const records = [
    rec(100, 'plan_start', {
      tool_call_id: 'call_1',
      steps: [
        { id: 'a', tool: 'bash' },
        { id: 'ask', tool: 'capsule-step' },
        { id: 'c', tool: 'bash' },
      ],
    }),
    step(130, 'call_1', { step: 'a', index: 1, tool: 'bash', status: 'passed', duration_ms: 25, exit_code: 0, input: { command: 'echo hi' }, output: 'hi' }),
    step(400, 'call_1', {
      step: 'ask',
      index: 2,
      tool: 'capsule-step',
      status: 'failed',
      duration_ms: 260,
      input: { capsule: 'http://127.0.0.1:4100', task: 'sum hi' },
      output: 'the door could not be reached: the connection was refused',
      door_task_id: 'tsk_far',
    }),
    step(401, 'call_1', { step: 'c', index: 3, tool: 'bash', status: 'skipped', duration_ms: 0 }),
    rec(402, 'plan_end', { tool_call_id: 'call_1', status: 'stopped', passed: 1, failed: 1, skipped: 1, duration_ms: 301 }),
    toolCall(403, 'call_1', 'submit-plan', 305),
    toolCall(500, 'call_2', 'bash', 10),
  ];
  const entries = recordEntries(row, records);
  assert.deepEqual(
    entries.map((e) => e.kind),
    ['tool-call', 'tool-call'],
  );
  const [plan, bash] = calls(entries);
  assert.equal(plan.offsetMs, 98);
  assert.deepEqual(plan.planSteps, [
    {
      id: 'a',
      index: 1,
      tool: 'bash',
      capsule: null,
      status: 'passed',
      input: { command: 'echo hi' },
      output: 'hi',
      exitCode: 0,
      doorTaskId: null,
      at: ts(105),
      offsetMs: 105,
      durationMs: 25,
    },
    {
      id: 'ask',
      index: 2,
      tool: null,
      capsule: 'http://127.0.0.1:4100',
      status: 'failed',
      input: { capsule: 'http://127.0.0.1:4100', task: 'sum hi' },
      output: 'the door could not be reached: the connection was refused',
      exitCode: null,
      doorTaskId: 'tsk_far',
      at: ts(140),
      offsetMs: 140,
      durationMs: 260,
    },
    {
      id: 'c',
      index: 3,
      tool: 'bash',
      capsule: null,
      status: 'skipped',
      input: null,
      output: '',
      exitCode: null,
      doorTaskId: null,
      at: ts(401),
      offsetMs: 401,
      durationMs: 0,
    },
  ]);
  assert.equal('planSteps' in bash, false, 'other tools carry no planSteps');
});

test('two plans in one task: each call gets its own steps in plan order; a plan refused before it ran has none', () => {
  const records = [
    step(20, 'call_b', { step: 'second', index: 2, tool: 'bash', status: 'passed', duration_ms: 5 }),
    step(10, 'call_b', { step: 'first', index: 1, tool: 'bash', status: 'passed', duration_ms: 5 }),
    toolCall(21, 'call_b', 'submit-plan', 15),
    step(60, 'call_c', { step: 'only', index: 1, tool: 'bash', status: 'canceled', duration_ms: 30 }),
    toolCall(61, 'call_c', 'submit-plan', 32),
    toolCall(70, 'call_d', 'submit-plan', 1),
  ];
  const steps = calls(recordEntries(row, records)).map((e) => [e.toolCallId, e.planSteps?.map((s) => `${s.index} ${s.id} ${s.status}`)]);
  assert.deepEqual(steps, [
    ['call_b', ['1 first passed', '2 second passed']],
    ['call_c', ['1 only canceled']],
    ['call_d', []],
  ]);
});

test('a reopen is an entry of its own, between the attempts it separates (docs/console.md, "Entries")', () => {
  const records = [
    started(),
    toolCall(50, 'call_1', 'bash', 10),
    rec(60, 'task_reopened', { hook: 'recheck', attempt: 2 }),
    toolCall(90, 'call_2', 'bash', 10),
  ];
  const entries = recordEntries(row, records);
  assert.deepEqual(
    entries.map((e) => e.kind),
    ['input', 'tool-call', 'reopen', 'tool-call'],
  );
  assert.deepEqual(entries[2], { kind: 'reopen', at: ts(60), offsetMs: 60, attempt: 2, hook: 'recheck' });
});

test('a harness run’s records are entries of their own: its start, its end, a forget (docs/console.md, "Entries")', () => {
  const session = '0f1e2d3c-4b5a-4697-8877-665544332211';
  const records = [
    started(),
    rec(5, 'harness_session_forgotten', { context_id: 'ctx_p', harness_session_id: 'old-session', requested_by: 'a2a' }),
    rec(10, 'harness_start', { context_id: 'ctx_p', harness: 'claude-code', model: 'claude-sonnet-4-5', session_mode: 'new', harness_session_id: session }),
    toolCall(50, 'call_1', 'Bash', 10),
    rec(60, 'harness_end', { harness: 'claude-code', harness_session_id: session, outcome: 'answered', exit_code: 0, turns: 2 }),
    rec(70, 'harness_start', { context_id: 'ctx_p', harness: 'codex', model: 'gpt-5-codex', session_mode: 'resume', harness_session_id: null }),
    rec(90, 'harness_end', {
      harness: 'codex',
      harness_session_id: null,
      outcome: 'failed',
      exit_code: null,
      turns: 0,
      failure: 'harness failed: codex exited 1',
    }),
  ];
  const entries = recordEntries(row, records);
  assert.deepEqual(
    entries.map((e) => e.kind),
    ['input', 'harness-session-forgotten', 'harness-start', 'tool-call', 'harness-end', 'harness-start', 'harness-end'],
  );
  assert.deepEqual(entries[1], { kind: 'harness-session-forgotten', at: ts(5), offsetMs: 5, harnessSessionId: 'old-session', requestedBy: 'a2a' });
  assert.deepEqual(entries[2], {
    kind: 'harness-start',
    at: ts(10),
    offsetMs: 10,
    harness: 'claude-code',
    model: 'claude-sonnet-4-5',
    sessionMode: 'new',
    harnessSessionId: session,
  });
  assert.deepEqual(entries[4], {
    kind: 'harness-end',
    at: ts(60),
    offsetMs: 60,
    harness: 'claude-code',
    harnessSessionId: session,
    outcome: 'answered',
    exitCode: 0,
    turns: 2,
    failure: null,
  });
  assert.deepEqual(entries[6], {
    kind: 'harness-end',
    at: ts(90),
    offsetMs: 90,
    harness: 'codex',
    harnessSessionId: null,
    outcome: 'failed',
    exitCode: null,
    turns: 0,
    failure: 'harness failed: codex exited 1',
  });
});

test('an inference record with the telemetry call facts (driver_kind, max_tokens, response_id, response_model) makes the same turn entry as one without', () => {
  const base = {
    turn: 1,
    driver: 'claude',
    model: 'claude-sonnet-4-5',
    stop_reason: 'end_turn',
    usage: { input: 12, output: 3 },
    tool_calls: 0,
    duration_ms: 40,
    first_token_ms: 9,
  };
  const facts = { driver_kind: 'anthropic', max_tokens: 4096, response_id: 'msg_01abc', response_model: 'claude-sonnet-4-5-20250929' };
  const withFacts = rec(100, 'inference', { ...base, ...facts });
  assert.deepEqual(
    Object.fromEntries(Object.keys(facts).map((k) => [k, (withFacts as Record<string, unknown>)[k]])),
    facts,
    'the decoded record keeps the four fields',
  );
  const turns = (line: TraceLine) => recordEntries(row, [line]).filter((e) => e.kind === 'turn');
  assert.deepEqual(turns(withFacts), turns(rec(100, 'inference', base)));
  assert.equal(turns(withFacts).length, 1);
});

test('the governors, hooks, input timeouts, retries and delegations are entries of their own, each at its start (issue 37)', () => {
  const records = [
    started('ctx_1', 'msg_1'),
    rec(90, 'inference_retry', { turn: 1, driver: 'script', attempt: 1, reason: 'HTTP 503', delay_ms: 250 }),
    rec(100, 'compaction', {
      turn: 2,
      tokens_before: 9000,
      tokens_before_source: 'estimate',
      tokens_after: 3000,
      budget_tokens: 8000,
      threshold: 0.8,
      elided_results: 2,
      summarized_messages: 4,
      duration_ms: 40,
    }),
    rec(110, 'conversation_trimmed', { turn: 2, elided_chars: 1200, budget_chars: 32000 }),
    rec(120, 'spend_refused', { turn: 2, ceiling: 'session', limit: 1000, spent: 900, projected: 1200 }),
    rec(130, 'tool_call_denied', { tool: 'bash', tool_call_id: 'call_d', hook: 'guard', reason: 'no rm' }),
    rec(140, 'delegation_start', { delegation_id: 'dlg_1', capsule: 'helper', child_session_id: 'ses_c', child_task_id: 'tsk_c', child_workdir: '/w' }),
    toolCall(145, 'call_g', 'delegate-task', 10),
    rec(150, 'keep_working', { turn: 2, used: 1, left: 2 }),
    rec(230, 'done_check', { turn: 3, exit_code: 1, timed_out: false, duration_ms: 30, outcome: 'sent_back', used: 1, left: 0 }),
    rec(300, 'task_input_timeout', { waited_secs: 5 }),
    rec(340, 'delegation', { delegation_id: 'dlg_1', capsule: 'helper', status: 'completed', child_session_id: 'ses_c' }),
    rec(350, 'hook_failed', { hook: 'review', reason: 'timed out after 5 s' }),
    rec(360, 'hook_artifact', { hook: 'notes', content: 'all good' }),
  ];
  // delegate-task's output names its delegation (the runtime's own data).
  (records[7] as { output: string }).output = '{"delegation_id":"dlg_1"}';
  const entries = recordEntries(row, records);
  assert.deepEqual(
    entries.map((e) => [e.kind, e.offsetMs]),
    [
      ['input', 0],
      ['compaction', 60],
      ['inference-retry', 90],
      ['trimmed', 110],
      ['spend-refused', 120],
      ['tool-denied', 130],
      ['delegation', 140],
      ['tool-call', 135],
      ['keep-working', 150],
      ['done-check', 200],
      ['input-timeout', 300],
      ['hook', 350],
      ['hook', 360],
    ].sort((a, b) => (a[1] as number) - (b[1] as number)),
  );
  const byKind = <K extends TaskRecordEntry['kind']>(kind: K) => entries.find((e): e is Extract<TaskRecordEntry, { kind: K }> => e.kind === kind);
  assert.deepEqual(byKind('delegation'), {
    kind: 'delegation',
    at: ts(140),
    offsetMs: 140,
    delegationId: 'dlg_1',
    capsule: 'helper',
    childSessionId: 'ses_c',
    childTaskId: 'tsk_c',
    toolCallId: 'call_g',
    status: 'completed',
    durationMs: 200,
  });
  assert.deepEqual(byKind('done-check'), {
    kind: 'done-check',
    at: ts(200),
    offsetMs: 200,
    turn: 3,
    outcome: 'sent_back',
    exitCode: 1,
    timedOut: false,
    durationMs: 30,
    used: 1,
    left: 0,
  });
  assert.deepEqual(byKind('compaction'), {
    kind: 'compaction',
    at: ts(60),
    offsetMs: 60,
    turn: 2,
    tokensBefore: 9000,
    tokensBeforeSource: 'estimate',
    tokensAfter: 3000,
    budgetTokens: 8000,
    elidedResults: 2,
    summarizedMessages: 4,
    durationMs: 40,
    failed: null,
  });
  assert.deepEqual(byKind('spend-refused'), {
    kind: 'spend-refused',
    at: ts(120),
    offsetMs: 120,
    turn: 2,
    ceiling: 'session',
    limit: 1000,
    spent: 900,
    projected: 1200,
  });
  assert.deepEqual(byKind('tool-denied'), {
    kind: 'tool-denied',
    at: ts(130),
    offsetMs: 130,
    tool: 'bash',
    toolCallId: 'call_d',
    hook: 'guard',
    reason: 'no rm',
  });
  assert.deepEqual(byKind('keep-working'), { kind: 'keep-working', at: ts(150), offsetMs: 150, turn: 2, used: 1, left: 2 });
  assert.deepEqual(
    entries.filter((e) => e.kind === 'hook').map((e) => (e.kind === 'hook' ? [e.hook, e.outcome, e.text] : [])),
    [
      ['review', 'failed', 'timed out after 5 s'],
      ['notes', 'artifact', 'all good'],
    ],
  );
  // A delegation still running: its status says so and it has no duration yet.
  const running = recordEntries(row, records.slice(0, 8));
  assert.deepEqual([byKindOf(running, 'delegation')?.status, byKindOf(running, 'delegation')?.durationMs], ['running', null]);
});

function byKindOf(entries: TaskRecordEntry[], kind: 'delegation') {
  return entries.find((e): e is Extract<TaskRecordEntry, { kind: 'delegation' }> => e.kind === kind);
}
