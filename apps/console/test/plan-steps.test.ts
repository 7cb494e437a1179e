// @vitest-environment jsdom (renders components)
import type { ConsoleTaskRecordPage, TaskRecordEntry, TaskRecordPlanStep, TaskRecordSummary } from '@murmur/protocol';
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import TaskRecord from '../src/components/TaskRecord.svelte';
import { recordRows } from '../src/lib/records/record-rows';
import { TaskRecordView } from '../src/lib/records/task-record.svelte';
import { useConsoleFetch } from './support/console-fetch';

// A plan on the record (docs/console.md, "Plans"): the submit-plan call's steps nested under it on the waterfall.
const t0 = Date.UTC(2026, 11, 1, 10, 0, 0);
const at = (ms: number) => ({ at: new Date(t0 + ms).toISOString(), offsetMs: ms });
const step = (index: number, id: string, ms: number, durationMs: number, over: Partial<TaskRecordPlanStep> = {}): TaskRecordPlanStep => ({
  id,
  index,
  tool: 'bash',
  capsule: null,
  status: 'passed',
  input: { command: `echo ${id}` },
  output: `Stdout:\n${id}\n`,
  exitCode: 0,
  doorTaskId: null,
  ...at(ms),
  durationMs,
  ...over,
});
const steps = [
  step(1, 'one', 12, 100),
  step(2, 'ask', 115, 300, {
    tool: null,
    capsule: 'http://127.0.0.1:4100',
    input: { capsule: 'http://127.0.0.1:4100', task: 'sum it' },
    output: 'the door could not be reached: the connection was refused',
    exitCode: null,
    status: 'failed',
    doorTaskId: 'tsk_far',
  }),
  step(3, 'three', 416, 0, { status: 'skipped', input: null, output: '', exitCode: null }),
];
const entries: TaskRecordEntry[] = [
  { kind: 'input', ...at(0), text: 'plan it', attachments: [] },
  { kind: 'turn', ...at(1), turn: 1, durationMs: 5, firstTokenMs: null, inputTokens: null, outputTokens: null, cachedTokens: null, stopReason: 'tool_use' },
  {
    kind: 'tool-call',
    ...at(10),
    toolCallId: 'call_1',
    tool: 'submit-plan',
    input: { steps: [] },
    output: '[submit-plan] …',
    exitCode: null,
    status: 'error',
    durationMs: 410,
    planSteps: steps,
  },
  { kind: 'tool-call', ...at(430), toolCallId: 'call_2', tool: 'bash', input: { command: 'true' }, output: null, exitCode: 0, status: 'passed', durationMs: 3 },
];
const summary: TaskRecordSummary = {
  taskId: 'tsk_plan',
  contextId: 'ctx',
  sessionId: 'ses_1',
  state: 'TASK_STATE_COMPLETED',
  createdAt: new Date(t0).toISOString(),
  updatedAt: new Date(t0 + 500).toISOString(),
  input: 'plan it',
  answer: null,
  statusText: null,
  durationMs: 500,
  turns: 1,
  toolCalls: 2,
};

describe('a plan on the record', () => {
  it('nests each step under its submit-plan call, one level in, at its place on the task’s axis', () => {
    const rows = recordRows(entries, summary.createdAt, new Map());
    expect(
      rows.map((r) =>
        r.kind === 'entry' ? `entry ${r.index}` : r.kind === 'plan-step' ? `step ${r.depth} ${r.step.id} of ${r.of} in ${r.planIndex}` : r.kind,
      ),
    ).toEqual(['entry 0', 'entry 1', 'entry 2', 'step 1 one of 3 in 2', 'step 1 ask of 3 in 2', 'step 1 three of 3 in 2', 'entry 3']);
    expect(rows.slice(3, 6).map((r) => (r.kind === 'plan-step' ? { offsetMs: r.offsetMs, durationMs: r.step.durationMs } : null))).toEqual([
      { offsetMs: 12, durationMs: 100 },
      { offsetMs: 115, durationMs: 300 },
      { offsetMs: 416, durationMs: 0 },
    ]);
  });

  it('a member’s plan nests its steps one level below the member’s call, with no link into the caller’s record', () => {
    const member = { task: { ...summary, taskId: 'tsk_m', createdAt: new Date(t0 + 5).toISOString() }, entries: [entries[2]] };
    const memberCall = {
      callId: 'mcl_1',
      member: 'worker',
      memberTaskId: 'tsk_m',
      memberSessionId: null,
      memberUrl: null,
      status: 'completed' as const,
      startedAt: at(0).at,
      elapsedMs: 500,
      offers: 1,
    };
    const caller: TaskRecordEntry[] = [
      {
        kind: 'tool-call',
        ...at(0),
        toolCallId: 'c',
        tool: 'call-member',
        input: null,
        output: null,
        exitCode: null,
        status: 'passed',
        durationMs: 1,
        memberCall,
      },
    ];
    const rows = recordRows(caller, summary.createdAt, new Map([['tsk_m', member]]));
    expect(rows.map((r) => `${r.kind} ${'depth' in r ? r.depth : 0}${r.kind === 'plan-step' ? ` ${r.planIndex}` : ''}`)).toEqual([
      'entry 0',
      'member-task 1',
      'member-entry 1',
      'plan-step 2 null',
      'plan-step 2 null',
      'plan-step 2 null',
    ]);
  });

  it('draws the steps as indented rows with their status in words, a link each, and their input and output', async () => {
    const page: ConsoleTaskRecordPage = { task: summary, entries, total: entries.length, nextCursor: null, members: [] };
    useConsoleFetch(async () => new Response(JSON.stringify(page), { headers: { 'content-type': 'application/json' } }));
    const view = new TaskRecordView('tsk_plan');
    await view.load();
    const { container } = render(TaskRecord, { props: { record: view, door: '127.0.0.1:4000' } });
    const table = screen.getByRole('table', { name: 'Task record' });
    const stepRows = within(table)
      .getAllByRole('row')
      .filter((r) => r.classList.contains('plan-step'));
    expect(stepRows.map((r) => r.querySelector('.what')?.textContent)).toEqual([
      'Step 1 of 3 "one" · bash',
      'Step 2 of 3 "ask" · capsule http://127.0.0.1:4100',
      'Step 3 of 3 "three" · bash',
    ]);
    expect(stepRows.map((r) => r.querySelector('.step-status')?.textContent)).toEqual(['passed (exit 0)', 'failed', 'skipped']);
    expect(stepRows[1].textContent).toContain('task tsk_far');
    // Each is keyboard reachable: a link to its plan's entry (the third entry), as every entry's row has.
    const link = within(stepRows[0]).getByRole('link', { name: /^\+[^,]+, link to entry 3, the plan of Step 1 of 3 "one" · bash$/ });
    expect(link.getAttribute('href')).toBe('#/door/127.0.0.1:4000/tasks/tsk_plan?entry=2');
    expect(within(stepRows[0]).getByText('$ echo one')).toBeTruthy();
    const summaryOf = within(stepRows[1]).getByText('Output of step ask');
    await fireEvent.click(summaryOf);
    expect(within(stepRows[1]).getByText('the door could not be reached: the connection was refused')).toBeTruthy();
    expect(stepRows[2].querySelector('details')).toBeNull();
    // Indented one level under the plan, each with its duration; the failed step's status is marked as stopping the plan.
    expect(stepRows.map((r) => (r.querySelector('.nest') as HTMLElement).style.paddingLeft)).toEqual(['1.25rem', '1.25rem', '1.25rem']);
    expect(stepRows.map((r) => r.querySelector('.step-status')?.classList.contains('stopped'))).toEqual([false, true, false]);
    expect(stepRows.map((r) => r.lastElementChild?.textContent)).toEqual(['100 ms', '300 ms', '0 ms']);
    // Where each falls on the task's axis is the trace's to draw: the table has no timing column of its own.
    expect([...container.querySelectorAll('table[aria-label="Task record"] th')].map((th) => th.textContent)).toEqual(['At', 'What', 'Duration']);
  });
});
