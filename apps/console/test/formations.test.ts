import {
  type ConsoleFormationMember,
  type ConsoleMemberCall,
  memberTaskIds,
  type TaskRecordEntry,
  type TaskRecordMemberCall,
  type TaskRecordSummary,
} from '@murmur/protocol';
import { describe, expect, it } from 'vitest';
import { callElapsedMs, callStatus, memberActivity, orderCalls, readFormations } from '../src/lib/formations/formations';
import { Formations } from '../src/lib/formations/formations.svelte';
import { entryDurationMs, recordRows } from '../src/lib/records/record-rows';
import { href, parseRoute } from '../src/lib/routing/routes';
import { useConsoleFetch } from './support/console-fetch';

const member = (over: Partial<ConsoleFormationMember> = {}): ConsoleFormationMember => ({
  member: 'planner',
  sessionId: 'ses_1',
  url: 'http://127.0.0.1:4001',
  pid: 10,
  entry: true,
  session: 'live',
  tasks: {},
  records: 'host',
  ...over,
});

const call = (over: Partial<ConsoleMemberCall> = {}): ConsoleMemberCall => ({
  callId: 'mcl_1',
  caller: 'planner',
  callerSessionId: 'ses_1',
  callerTaskId: 'tsk_c',
  callee: 'worker',
  calleeSessionId: 'ses_2',
  memberTaskId: 'tsk_m',
  memberTaskState: 'TASK_STATE_WORKING',
  toolCallId: 'call_1',
  status: 'running',
  ended: false,
  offers: 1,
  startedAt: '2026-12-01T10:00:00.000Z',
  endedAt: null,
  elapsedMs: null,
  ...over,
});

describe('memberActivity', () => {
  it('reads the process first, then calls in flight as a caller, then the store', () => {
    expect(memberActivity(member({ session: 'stale' }), [call()])).toEqual({ label: 'gone', tone: 'bad' });
    expect(memberActivity(member({ session: 'ended' }), [])).toEqual({ label: 'stopped', tone: 'muted' });
    expect(memberActivity(member({ tasks: { TASK_STATE_WORKING: 1 } }), [call(), call({ callId: 'mcl_2', callee: 'critic' })]).label).toBe(
      'waiting on 2 calls',
    );
    expect(memberActivity(member(), [call()]).label).toBe('waiting on 1 call');
    expect(memberActivity(member(), [call({ ended: true, status: 'completed' })]).label).toBe('idle');
    expect(memberActivity(member({ member: 'worker', tasks: { TASK_STATE_WORKING: 1 } }), [call()])).toEqual({ label: 'working', tone: 'info' });
    expect(memberActivity(member({ tasks: { TASK_STATE_SUBMITTED: 2 } }), []).label).toBe('working');
    expect(memberActivity(member({ tasks: { TASK_STATE_INPUT_REQUIRED: 1, TASK_STATE_WORKING: 1 } }), []).label).toBe('needs input');
    expect(memberActivity(member({ tasks: { TASK_STATE_COMPLETED: 4 } }), [])).toEqual({ label: 'idle', tone: 'ok' });
  });
});

describe('callStatus and callElapsedMs', () => {
  it('names a call in flight, an answered call awaiting its round, and an ended one', () => {
    expect(callStatus(call()).label).toBe('running');
    expect(callStatus(call({ memberTaskState: 'TASK_STATE_COMPLETED' })).label).toBe('answered, awaiting the round');
    expect(callStatus(call({ status: 'offering', memberTaskId: null, memberTaskState: null, offers: 3 })).label).toBe('offering (busy, 3 offers)');
    expect(callStatus(call({ ended: true, status: 'completed' }))).toEqual({ label: 'completed', tone: 'ok' });
    expect(callStatus(call({ ended: true, status: 'timed_out' }))).toEqual({ label: 'timed out', tone: 'bad' });
    expect(callStatus(call({ ended: true, status: 'no_answer' })).label).toBe('no answer');
  });

  it('counts a call in flight on the given clock and an ended one from its record', () => {
    const started = Date.parse('2026-12-01T10:00:00.000Z');
    expect(callElapsedMs(call(), started + 2500)).toBe(2500);
    expect(callElapsedMs(call(), started - 10)).toBe(0);
    expect(callElapsedMs(call({ ended: true, elapsedMs: 3081, endedAt: '2026-12-01T10:00:03.081Z' }), started + 99_999)).toBe(3081);
    expect(callElapsedMs(call({ ended: true, elapsedMs: null, endedAt: '2026-12-01T10:00:01.500Z' }), 0)).toBe(1500);
  });

  it('orders calls in flight first, newest first within each', () => {
    const calls = [
      call({ callId: 'a', ended: true, status: 'completed', startedAt: '2026-12-01T10:00:05.000Z' }),
      call({ callId: 'b', startedAt: '2026-12-01T10:00:01.000Z' }),
      call({ callId: 'c', startedAt: '2026-12-01T10:00:02.000Z' }),
      call({ callId: 'd', ended: true, status: 'failed', startedAt: '2026-12-01T10:00:09.000Z' }),
    ];
    expect(orderCalls(calls).map((c) => c.callId)).toEqual(['c', 'b', 'd', 'a']);
  });

  it('reads the API body, refusing one that is not a formation list', () => {
    expect(readFormations({ formations: [{ key: 'f-1', members: [], calls: [] }, { nope: true }] })).toHaveLength(1);
    expect(() => readFormations({ sessions: [] })).toThrow(/not a formation list/);
    expect(() => readFormations(null)).toThrow(/not a formation list/);
  });
});

describe('the formation route', () => {
  it('reads and writes #/formation/<name>-<pid>', () => {
    expect(parseRoute('#/formation/review-9367')).toEqual({ name: 'formation', key: 'review-9367' });
    expect(href({ name: 'formation', key: 'review-9367' })).toBe('#/formation/review-9367');
    expect(parseRoute('#/formation/review-1/more')).toMatchObject({ name: 'not-found' });
    expect(parseRoute('#/formation')).toMatchObject({ name: 'not-found' });
  });
});

describe('recordRows: a member task nested under its call-member tool call', () => {
  const t0 = Date.parse('2026-12-01T10:00:00.000Z');
  const at = (ms: number) => ({ at: new Date(t0 + ms).toISOString(), offsetMs: ms });
  const memberCall = (over: Partial<TaskRecordMemberCall> = {}): TaskRecordMemberCall => ({
    callId: 'mcl_1',
    member: 'worker',
    memberTaskId: 'tsk_w',
    memberSessionId: 'ses_w',
    memberUrl: 'http://127.0.0.1:4002',
    status: 'completed',
    startedAt: new Date(t0).toISOString(),
    elapsedMs: 3000,
    offers: 1,
    ...over,
  });
  const summary = (taskId: string, createdMs: number, durationMs: number | null): TaskRecordSummary => ({
    taskId,
    contextId: 'ctx',
    sessionId: 'ses_w',
    state: durationMs === null ? 'TASK_STATE_WORKING' : 'TASK_STATE_COMPLETED',
    createdAt: new Date(createdMs).toISOString(),
    updatedAt: new Date(createdMs).toISOString(),
    input: null,
    answer: null,
    statusText: null,
    durationMs,
    turns: 1,
    toolCalls: 1,
  });
  const tool = (ms: number, over: Partial<Extract<TaskRecordEntry, { kind: 'tool-call' }>> = {}): TaskRecordEntry => ({
    kind: 'tool-call',
    ...at(ms),
    toolCallId: 'call_1',
    tool: 'call-member',
    input: null,
    output: null,
    exitCode: null,
    status: 'passed',
    durationMs: 40,
    ...over,
  });
  const turn = (ms: number, durationMs: number): TaskRecordEntry => ({
    kind: 'turn',
    ...at(ms),
    turn: 1,
    durationMs,
    firstTokenMs: null,
    inputTokens: null,
    outputTokens: null,
    cachedTokens: null,
    stopReason: null,
  });

  it('places the member task and its turns and tool calls on the caller’s axis, under the call', () => {
    const caller = [turn(0, 5), tool(10, { memberCall: memberCall() }), turn(3100, 2)];
    // The member's own offsets are from its creation (+20 ms on the caller's axis).
    const worker = {
      task: summary('tsk_w', t0 + 20, 3000),
      entries: [turn(20, 2500), tool(2600, { tool: 'bash', durationMs: 300 }), { kind: 'answer', ...at(3000), text: 'x' } as TaskRecordEntry],
    };
    const rows = recordRows(caller, new Date(t0).toISOString(), new Map([['tsk_w', worker]]));
    expect(
      rows.map((r) =>
        r.kind === 'entry'
          ? `entry ${r.index}`
          : r.kind === 'member-task'
            ? `task ${r.depth} ${r.offsetMs} ${r.durationMs}`
            : r.kind === 'member-entry'
              ? `${r.member} ${r.entry.kind} ${r.offsetMs}`
              : r.kind,
      ),
    ).toEqual(['entry 0', 'entry 1', 'task 1 20 3000', 'worker turn 20', 'worker tool-call 2600', 'entry 2']);
    const nestedTask = rows[2];
    expect(nestedTask.kind === 'member-task' && nestedTask.door).toBe('127.0.0.1:4002');
    expect(memberTaskIds(caller)).toEqual(['tsk_w']);
  });

  it('nests a member’s own calls one level deeper, and stops at a task already shown', () => {
    const caller = [tool(0, { memberCall: memberCall() })];
    const worker = {
      task: summary('tsk_w', t0 + 5, 100),
      entries: [
        tool(10, { memberCall: memberCall({ member: 'critic', memberTaskId: 'tsk_c' }) }),
        tool(50, { toolCallId: 'call_2', memberCall: memberCall({ member: 'planner', memberTaskId: 'tsk_w' }) }),
      ],
    };
    const critic = { task: summary('tsk_c', t0 + 15, 20), entries: [turn(15, 20)] };
    const rows = recordRows(
      caller,
      new Date(t0).toISOString(),
      new Map([
        ['tsk_w', worker],
        ['tsk_c', critic],
      ]),
    );
    expect(rows.filter((r) => r.kind !== 'entry').map((r) => `${r.kind} ${r.depth}`)).toEqual([
      'member-task 1',
      'member-entry 1',
      'member-task 2',
      'member-entry 2',
      'member-entry 1',
      // tsk_w again: named, not nested a second time.
      'member-task 2',
    ]);
  });

  it('places every row on the caller’s axis: its entries, a member’s task (its creation to its end) and the member’s entries', () => {
    const caller = [
      { kind: 'input', ...at(0), text: 'go', attachments: [] } as TaskRecordEntry,
      turn(0, 5),
      tool(10, { memberCall: memberCall() }),
      { kind: 'answer', ...at(3500), text: 'done' } as TaskRecordEntry,
    ];
    const worker = { task: summary('tsk_w', t0 + 20, 3000), entries: [turn(20, 2500)] };
    const rows = recordRows(caller, new Date(t0).toISOString(), new Map([['tsk_w', worker]]));
    const placed = rows.map((r) => {
      if (r.kind === 'entry') return [r.entry.offsetMs, entryDurationMs(r.entry)];
      if (r.kind === 'member-task') return [r.offsetMs, r.durationMs];
      return r.kind === 'member-entry' ? [r.offsetMs, r.entry.durationMs] : null;
    });
    expect(placed).toEqual([
      [0, null],
      [0, 5],
      [10, 40],
      [20, 3000],
      [20, 2500],
      [3500, null],
    ]);
  });

  it('shows a call whose member never took the task, and one whose record is not on this host', () => {
    const caller = [
      tool(0, { memberCall: memberCall({ memberTaskId: null, status: 'rejected', elapsedMs: 8000, memberUrl: null }) }),
      tool(5, { toolCallId: 'call_2', memberCall: memberCall({ memberTaskId: 'tsk_x' }) }),
    ];
    const rows = recordRows(caller, new Date(t0).toISOString(), new Map());
    expect(rows.filter((r) => r.kind === 'member-task').map((r) => r.kind === 'member-task' && [r.task, r.durationMs, r.door])).toEqual([
      [null, 8000, null],
      [null, 3000, '127.0.0.1:4002'],
    ]);
  });
});

describe('the formations list', () => {
  it('says why mur console refused it: a browser on another host is not a loopback peer', async () => {
    const message = "mur console reads this machine's records and formations for a loopback peer only, not for 10.0.0.1";
    useConsoleFetch(async () => new Response(JSON.stringify({ error: 'not_loopback', message }), { status: 403 }));
    const refused = new Formations();
    await refused.refresh();
    expect(refused.list).toBeNull();
    expect(refused.problem).toMatchObject({ kind: 'api', title: 'mur console refused', detail: `/api/formations answered HTTP 403: ${message}`, code: 403 });

    useConsoleFetch(async () => new Response('nope', { status: 502 }));
    const down = new Formations();
    await down.refresh();
    expect(down.problem).toMatchObject({ title: 'mur console did not answer', detail: '/api/formations answered HTTP 502', code: 502 });
  });
});
