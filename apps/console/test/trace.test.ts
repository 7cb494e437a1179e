import { type TaskRecordEntry, type TaskRecordMember, type TaskRecordMemberCall, type TaskRecordSummary, taskTimeSplit } from '@murmur/protocol';
import { describe, expect, it, vi } from 'vitest';
import { clampWindow, panWindow, rulerTicks, tickLabel, zoomWindow } from '../src/lib/trace/trace-scale';
import { buildTrace, type TraceSpan } from '../src/lib/trace/trace-spans';
import { TraceView, visibleRows } from '../src/lib/trace/trace-view.svelte';
import { useConsoleFetch } from './support/console-fetch';

// Records as the door's record plane answers them (record-reads/task-records.ts): every entry kind the trace nests.
const t0 = Date.UTC(2026, 11, 1, 10, 0, 0);
const at = (ms: number) => ({ at: new Date(t0 + ms).toISOString(), offsetMs: ms });
const summary = (over: Partial<TaskRecordSummary> = {}): TaskRecordSummary => ({
  taskId: 'tsk_caller',
  contextId: 'ctx_1',
  sessionId: 'ses_1',
  state: 'TASK_STATE_COMPLETED',
  createdAt: new Date(t0).toISOString(),
  updatedAt: new Date(t0 + 2000).toISOString(),
  input: 'plan the kite',
  answer: 'kite planned',
  statusText: null,
  durationMs: 2000,
  turns: 3,
  toolCalls: 3,
  ...over,
});
const turn = (n: number, ms: number, durationMs: number, tokens: [number, number] | null = null): TaskRecordEntry => ({
  kind: 'turn',
  ...at(ms),
  turn: n,
  durationMs,
  firstTokenMs: 10,
  inputTokens: tokens?.[0] ?? null,
  outputTokens: tokens?.[1] ?? null,
  cachedTokens: null,
  stopReason: 'tool_use',
});
const tool = (
  id: string,
  name: string,
  ms: number,
  durationMs: number,
  over: Partial<Extract<TaskRecordEntry, { kind: 'tool-call' }>> = {},
): TaskRecordEntry => ({
  kind: 'tool-call',
  ...at(ms),
  toolCallId: id,
  tool: name,
  input: { command: 'echo hi' },
  output: 'Stdout:\nhi\n',
  exitCode: 0,
  status: 'passed',
  durationMs,
  ...over,
});
// The case: the call-member tool call returns after 19 ms; the answer comes 556 ms after the call started.
const memberCall: TaskRecordMemberCall = {
  callId: 'mcl_1',
  member: 'worker',
  memberTaskId: 'tsk_worker',
  memberSessionId: 'ses_w',
  memberUrl: 'http://127.0.0.1:4002',
  status: 'completed',
  startedAt: new Date(t0 + 300).toISOString(),
  elapsedMs: 556,
  offers: 1,
};
const member: TaskRecordMember = {
  task: summary({ taskId: 'tsk_worker', sessionId: 'ses_w', createdAt: new Date(t0 + 310).toISOString(), durationMs: 500, turns: 1, toolCalls: 1 }),
  // The member's entries carry their own times (on the member's axis, from its creation at +310).
  entries: ([{ kind: 'input', ...at(310), text: 'part 1', attachments: [] }, turn(1, 330, 0), tool('w1', 'bash', 340, 400)] as TaskRecordEntry[]).map((e) => ({
    ...e,
    offsetMs: e.offsetMs - 310,
  })),
};
const entries: TaskRecordEntry[] = [
  { kind: 'input', ...at(0), text: 'plan the kite', attachments: [] },
  {
    kind: 'compaction',
    ...at(5),
    turn: 1,
    tokensBefore: 9000,
    tokensBeforeSource: 'estimate',
    tokensAfter: 3000,
    budgetTokens: 8000,
    elidedResults: 2,
    summarizedMessages: 4,
    durationMs: 15,
    failed: null,
  },
  turn(1, 20, 200, [120, 7]),
  tool('c1', 'bash', 220, 60),
  tool('c2', 'call-member', 300, 19, { memberCall }),
  { kind: 'tool-denied', ...at(320), tool: 'bash', toolCallId: 'c3', hook: 'guard', reason: 'no rm -rf' },
  turn(2, 860, 100),
  { kind: 'input-required', ...at(960), prompt: 'Which colour?' },
  { kind: 'reply', ...at(1300), text: 'red' },
  { kind: 'keep-working', ...at(1310), turn: 2, used: 1, left: 2 },
  { kind: 'spend-refused', ...at(1320), turn: 3, ceiling: 'session', limit: 1000, spent: 990, projected: 1200 },
  turn(3, 1330, 0),
  {
    kind: 'tool-call',
    ...at(1330),
    toolCallId: 'c4',
    tool: 'submit-plan',
    input: null,
    output: 'plan done',
    exitCode: null,
    status: 'passed',
    durationMs: 300,
    planSteps: [
      {
        id: 'a',
        index: 1,
        tool: 'bash',
        capsule: null,
        status: 'failed',
        input: { command: 'false' },
        output: '',
        exitCode: 1,
        doorTaskId: null,
        ...at(1340),
        durationMs: 100,
      },
    ],
  },
  {
    kind: 'delegation',
    ...at(1640),
    delegationId: 'dlg_1',
    capsule: 'helper',
    childSessionId: 'ses_c',
    childTaskId: 'tsk_c',
    toolCallId: null,
    status: 'completed',
    durationMs: 200,
  },
  { kind: 'done-check', ...at(1850), turn: 3, outcome: 'passed', exitCode: 0, timedOut: false, durationMs: 100, used: 1, left: 2 },
  { kind: 'hook', ...at(1960), hook: 'notes', outcome: 'artifact', text: 'all good' },
  { kind: 'answer', ...at(2000), text: 'kite planned' },
  { kind: 'end', ...at(2000), state: 'TASK_STATE_COMPLETED', status: null },
];
const members = new Map([['tsk_worker', member]]);
const trace = () => buildTrace(summary(), entries, members, { nowMs: t0 + 5000 });
/** Each span as `<depth> <kind> <label>` in row order. */
const outline = (spans: readonly TraceSpan[]) => spans.map((s) => `${s.depth} ${s.kind} ${s.label}`);

describe('buildTrace: a record as nested spans', () => {
  it('nests every kind of work under the task: turns, their model calls and what followed them, a member’s task under the wait for its answer', () => {
    expect(outline(trace().spans)).toEqual([
      '0 task Task tsk_caller',
      "1 mark Operator's message",
      '1 governor Compaction before turn 1',
      '1 turn Turn 1',
      '2 model Model call · tool_use',
      '2 tool Tool call bash (exit 0)',
      '2 tool Tool call call-member (exit 0)',
      "3 member-wait Waiting for worker's answer",
      "4 member-task worker's task",
      "5 mark Operator's message",
      '5 turn Turn 1',
      '6 model Model call · tool_use',
      '6 tool Tool call bash (exit 0)',
      '2 refusal Tool call bash denied by guard',
      '1 turn Turn 2',
      '2 model Model call · tool_use',
      '2 input-wait Waiting for input',
      '2 governor keep_working nudge after turn 2',
      '2 refusal Spend refused by the session ceiling',
      '1 turn Turn 3',
      '2 model Model call · tool_use',
      '2 tool Tool call submit-plan',
      '3 plan-step Step 1 of 1 "a" · bash',
      '2 delegation Delegation to helper (completed)',
      '2 governor Done check: passed',
      '2 hook Hook notes: artifact',
      '2 mark Answer',
      '1 mark Ended completed',
    ]);
  });

  it('places each span on the caller’s axis: the wait from the call’s start for its elapsed time, a turn over what it holds', () => {
    const { spans, spanMs } = trace();
    const find = (label: string) => spans.find((s) => s.label === label) as TraceSpan;
    expect(spanMs).toBe(2000);
    expect([find("Waiting for worker's answer").startMs, find("Waiting for worker's answer").durationMs]).toEqual([300, 556]);
    expect([find("worker's task").startMs, find("worker's task").durationMs]).toEqual([310, 500]);
    // Turn 1 runs from its model call's start to the end of the last thing in it (the call-member tool call at 319).
    expect([find('Turn 1').startMs, find('Turn 1').durationMs]).toEqual([20, 300]);
    const wait = find('Waiting for input');
    expect([wait.startMs, wait.durationMs, wait.running]).toEqual([960, 340, false]);
    // Instants are zero-length; failures and refusals are marked stopped.
    expect(find('Tool call bash denied by guard')).toMatchObject({ durationMs: 0, stopped: true });
    expect(find('Step 1 of 1 "a" · bash').stopped).toBe(true);
  });

  it('marks the critical path: what the task’s end waited on, through the member’s answer rather than its tool call', () => {
    const critical = trace()
      .spans.filter((s) => s.critical)
      .map((s) => s.label);
    expect(critical).toEqual([
      'Task tsk_caller',
      'Compaction before turn 1',
      'Turn 1',
      'Model call · tool_use',
      'Tool call bash (exit 0)',
      'Tool call call-member (exit 0)',
      "Waiting for worker's answer",
      "worker's task",
      'Turn 1',
      'Tool call bash (exit 0)',
      'Turn 2',
      'Model call · tool_use',
      'Waiting for input',
      'Turn 3',
      'Tool call submit-plan',
      'Step 1 of 1 "a" · bash',
      'Delegation to helper (completed)',
      'Done check: passed',
    ]);
  });

  it('a running task: what still runs reaches the time the record was read; an input wait with no reply yet too', () => {
    const running = entries.slice(0, 8);
    const { spans, spanMs } = buildTrace(summary({ state: 'TASK_STATE_INPUT_REQUIRED', durationMs: null }), running, members, { nowMs: t0 + 1500 });
    const wait = spans.find((s) => s.kind === 'input-wait') as TraceSpan;
    expect([wait.startMs, wait.durationMs, wait.running]).toEqual([960, 540, true]);
    expect(spanMs).toBe(1500);
    expect(spans[0]).toMatchObject({ running: true, durationMs: 1500 });
  });

  it('a reopened task holds one span per attempt, each from the reopen that started it', () => {
    const reopened: TaskRecordEntry[] = [
      { kind: 'input', ...at(0), text: 'go', attachments: [] },
      turn(1, 10, 50),
      { kind: 'reopen', ...at(100), attempt: 2, hook: 'review' },
      turn(2, 110, 50),
      { kind: 'end', ...at(200), state: 'TASK_STATE_COMPLETED', status: null },
    ];
    const { spans } = buildTrace(summary({ durationMs: 200 }), reopened, new Map(), { nowMs: t0 });
    expect(outline(spans).filter((l) => l.startsWith('1 '))).toEqual(['1 attempt Attempt 1', '1 attempt Attempt 2']);
    expect(spans.filter((s) => s.kind === 'attempt').map((s) => [s.startMs, s.durationMs])).toEqual([
      [0, 60],
      [100, 100],
    ]);
  });
});

describe('the time split of that record', () => {
  it('counts the wait for the member’s answer as waiting, not other (issue 37), and every part once', () => {
    const split = taskTimeSplit(entries, 2000);
    // Model: 200 + 100 = 300 (turn 3 took no time). Tools: bash 60, plan 300, done check 100 = 460. Members: the
    // answer awaited 300–856 (556) less nothing, plus the delegation's 200. Input: 960–1300 = 340.
    expect(split).toEqual({ wallMs: 2000, modelMs: 300, toolMs: 460, memberMs: 756, inputMs: 340, otherMs: 144 });
    expect(split.modelMs + split.toolMs + split.memberMs + split.inputMs + split.otherMs).toBe(2000);
  });
});

describe('TraceView: the treegrid’s rows, keys and zoom', () => {
  const view = () => {
    const v = new TraceView();
    v.setTrace(trace());
    return v;
  };
  const key = (v: TraceView, k: string, shiftKey = false) => v.key({ key: k, shiftKey, ctrlKey: false, metaKey: false, altKey: false });

  it('→ and ← collapse, expand and move between parent and child; ↓ ↑ Home End move; Enter selects', () => {
    const v = view();
    const all = v.rows.length;
    expect(all).toBe(v.spans.length);
    key(v, 'ArrowDown');
    key(v, 'ArrowDown');
    key(v, 'ArrowDown');
    expect(v.spans[v.rows[v.active] as number]?.label).toBe('Turn 1');
    key(v, 'ArrowLeft');
    expect(v.isCollapsed(v.rows[v.active] as number)).toBe(true);
    expect(v.rows.length).toBe(all - 10);
    key(v, 'ArrowRight');
    expect(v.rows.length).toBe(all);
    key(v, 'ArrowRight');
    expect(v.spans[v.rows[v.active] as number]?.label).toBe('Model call · tool_use');
    key(v, 'ArrowLeft');
    expect(v.spans[v.rows[v.active] as number]?.label).toBe('Turn 1');
    key(v, 'Enter');
    expect(v.selected?.label).toBe('Turn 1');
    key(v, 'End');
    expect(v.spans[v.rows[v.active] as number]?.label).toBe('Ended completed');
    key(v, 'Home');
    expect(v.active).toBe(0);
    expect(key(v, 'x')).toBe(false);
  });

  it('+ and − zoom around the centre, Shift+→ pans, 0 shows the whole task again', () => {
    const v = view();
    expect(v.window).toEqual({ from: 0, to: 2000 });
    key(v, '+');
    expect(v.window.to - v.window.from).toBeCloseTo(1250);
    expect((v.window.from + v.window.to) / 2).toBeCloseTo(1000);
    key(v, 'ArrowRight', true);
    expect(v.window.to).toBeCloseTo(1937.5);
    key(v, 'ArrowRight', true);
    expect(v.window.to).toBe(2000);
    key(v, '-');
    key(v, '0');
    expect(v.zoomed).toBe(false);
    v.zoomTo(v.spans.findIndex((s) => s.kind === 'member-wait'));
    expect(v.window.from).toBeCloseTo(300 - 27.8);
  });

  it('collapse to turns leaves the task, its top-level spans and the turns', () => {
    const v = view();
    v.collapseFrom(1);
    expect(outline(v.rows.map((id) => v.spans[id] as TraceSpan)).every((l) => /^[01] /.test(l))).toBe(true);
    expect(visibleRows(v.spans, new Set([0]))).toEqual([0]);
  });
});

describe('trace-scale: the window and the ruler', () => {
  it('zooms around an anchor, keeps the window on the axis and at least 1 ms wide', () => {
    expect(zoomWindow({ from: 0, to: 1000 }, 2, 0.25, 1000)).toEqual({ from: 125, to: 625 });
    expect(zoomWindow({ from: 0, to: 1000 }, 1e9, 0.5, 1000)).toEqual({ from: 499.5, to: 500.5 });
    expect(clampWindow({ from: -50, to: 200 }, 1000)).toEqual({ from: 0, to: 250 });
    expect(panWindow({ from: 800, to: 1000 }, 1, 1000)).toEqual({ from: 800, to: 1000 });
  });

  it('ticks at round steps whose labels never repeat, however far in one zooms', () => {
    expect(rulerTicks({ from: 0, to: 2000 })).toEqual([0, 500, 1000, 1500, 2000]);
    for (const w of [
      { from: 0, to: 2000 },
      { from: 12_340, to: 12_356 },
      { from: 0, to: 800 },
      { from: 0.2, to: 1.4 },
      { from: 3_600_000, to: 7_200_000 },
    ]) {
      const ticks = rulerTicks(w);
      expect(ticks.length).toBeGreaterThanOrEqual(4);
      expect(ticks.length).toBeLessThanOrEqual(12);
      const labels = ticks.map((t) => tickLabel(t, ticks, w));
      expect(new Set(labels).size).toBe(labels.length);
    }
    const w = { from: 12_340, to: 12_356 };
    expect(rulerTicks(w).map((t) => tickLabel(t, rulerTicks(w), w))[0]).toBe('12.340 s');
  });
});

describe('tokens per turn on a long task', () => {
  it('groups consecutive turns into at most the bars asked, summing what they reported', async () => {
    const { turnTokensChart } = await import('../src/lib/rollups/rollup-charts');
    const turns = Array.from({ length: 130 }, (_, i) => ({ turn: i + 1, offsetMs: i, input: i < 65 ? 10 : null, output: i < 65 ? 1 : null, cached: null }));
    const chart = turnTokensChart(turns, 60);
    expect(chart.categories).toHaveLength(44);
    expect(chart.categories[0]).toBe('Turns 1–3');
    expect(chart.categoryLabel).toBe('Turns (3 a bar)');
    expect(chart.series[0]?.values.slice(20, 23)).toEqual([30, 20, null]);
    expect(turnTokensChart(turns.slice(0, 2), 60).categories).toEqual(['Turn 1', 'Turn 2']);
  });
});

describe('TaskRecordView: a finished task’s record is read once (issue 37)', async () => {
  const { TaskRecordView } = await import('../src/lib/records/task-record.svelte');
  const page = (state: TaskRecordSummary['state']) => ({
    task: summary({ state, durationMs: state === 'TASK_STATE_WORKING' ? null : 2000 }),
    entries,
    total: entries.length,
    nextCursor: null,
    members: [],
  });
  /** mur console's record API, answering after a tick; counts the reads. */
  const api = (state: TaskRecordSummary['state']) => {
    const reads: string[] = [];
    const fetch = async (url: string | URL | Request) => {
      // The caller's record (its member's task, which the page does not carry, is read from the member's door).
      if (String(url).includes('/tasks/tsk_caller?')) reads.push(String(url));
      await new Promise((r) => setTimeout(r, 5));
      return new Response(JSON.stringify(page(state)), { status: 200, headers: { 'content-type': 'application/json' } });
    };
    return { reads, fetch: fetch as typeof globalThis.fetch };
  };

  it('a change seen while the first read is under way is not read again once the record holds an ended task', async () => {
    const { reads, fetch } = api('TASK_STATE_COMPLETED');
    useConsoleFetch(fetch);
    const view = new TaskRecordView('tsk_caller');
    const loading = view.load();
    await view.refresh();
    await view.refresh();
    await loading;
    await view.refresh();
    expect(reads).toHaveLength(1);
    expect(view.trace?.spans[0]?.label).toBe('Task tsk_caller');
  });

  it('a running task is read again once the read under way lands, once for however many changes came meanwhile', async () => {
    const { reads, fetch } = api('TASK_STATE_WORKING');
    useConsoleFetch(fetch);
    const view = new TaskRecordView('tsk_caller');
    const loading = view.load();
    void view.refresh();
    void view.refresh();
    await loading;
    await vi.waitFor(() => expect(view.loading).toBe(false));
    expect(reads).toHaveLength(2);
  });
});
