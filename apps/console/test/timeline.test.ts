import { describe, expect, it } from 'vitest';
import { newPerfCounters } from '../src/lib/timeline/perf';
import { type Entry, type TaskHeaderRow, type TextEntry, TimelineStore, type ToolEntry } from '../src/lib/timeline/timeline.svelte';
import { artifact, connection, frame, manualScheduler, sessionFrame, status, T1, T2, task, taskEvent } from './support/events';

function setup(limits = {}) {
  const clock = manualScheduler();
  const perf = newPerfCounters();
  const timeline = new TimelineStore({ scheduler: clock.scheduler, perf, limits });
  return { clock, perf, timeline };
}

const entries = (timeline: TimelineStore) => timeline.rows.filter((r): r is Entry => r.kind !== 'task' && r.kind !== 'more');
const taskRows = (timeline: TimelineStore) => timeline.rows.filter((r): r is TaskHeaderRow => r.kind === 'task');

describe('TimelineStore batching', () => {
  it('writes nothing until the animation frame, then everything in one flush', () => {
    const { clock, perf, timeline } = setup();
    timeline.push(status(T1, 'TASK_STATE_SUBMITTED'));
    timeline.push(status(T1, 'TASK_STATE_WORKING', 'inference turn 1'));
    timeline.push(frame(T1, { frame: 'text', text: 'fo', final: false }));
    expect(timeline.rows).toEqual([]);
    expect(clock.frames).toHaveLength(1);
    expect(perf).toMatchObject({ framesReceived: 3, framesRendered: 0 });

    clock.runFrame();
    expect(timeline.rows.map((r) => r.kind)).toEqual(['task', 'status', 'status', 'text']);
    expect(perf).toMatchObject({ framesReceived: 3, framesRendered: 3, batches: 1 });
  });

  it('asks for one frame per batch, however many events arrive', () => {
    const { clock, perf, timeline } = setup();
    for (let i = 0; i < 2000; i++) timeline.push(frame(T1, { frame: 'text', text: 'x', final: false }));
    expect(clock.frames).toHaveLength(1);
    clock.runFrame();
    expect(perf.batches).toBe(1);
    expect(perf.framesRendered).toBe(2000);
    const [text] = entries(timeline) as TextEntry[];
    expect(text.text).toHaveLength(2000);
    expect(timeline.pendingCount).toBe(0);
  });

  it('applies 2,000 events in one batch well within a frame budget', () => {
    const perf = newPerfCounters();
    const timeline = new TimelineStore({ perf, scheduler: { requestFrame: () => 1, cancelFrame: () => {}, setTimer: () => 1, clearTimer: () => {} } });
    for (let i = 0; i < 2000; i++) {
      const t = i % 2 === 0 ? T1 : T2;
      timeline.push(i % 50 === 0 ? status(t, 'TASK_STATE_WORKING', `inference turn ${i}`) : frame(t, { frame: 'text', text: `chunk ${i} `, final: false }));
    }
    timeline.flush();
    expect(perf.framesRendered).toBe(2000);
    // Generous for slow CI machines; the browser check reads the real figure from window.__murmurConsole.
    expect(perf.lastBatchMs).toBeLessThan(100);
    expect(perf.maxBatchMs).toBe(perf.lastBatchMs);
  });

  it('records the time of each flush with the injected clock', () => {
    const { clock, perf, timeline } = setup();
    const slow = new TimelineStore({
      scheduler: clock.scheduler,
      perf,
      afterFlush: () => clock.advance(7),
    });
    slow.push(status(T1, 'TASK_STATE_WORKING'));
    clock.runFrame();
    expect(perf.lastBatchMs).toBe(7);
    expect(perf.maxBatchMs).toBe(7);
    void timeline;
  });

  it('applies early when too many events wait (a hidden tab gets no frames)', () => {
    const { clock, perf, timeline } = setup({ maxPending: 100 });
    for (let i = 0; i < 250; i++) timeline.push(frame(T1, { frame: 'text', text: 'y', final: false }));
    expect(timeline.pendingCount).toBe(50);
    clock.runFrame();
    expect(perf.framesRendered).toBe(250);
    expect((entries(timeline)[0] as TextEntry).text).toHaveLength(250);
  });

  it('ignores connection events (the feed shows those)', () => {
    const { clock, perf, timeline } = setup();
    timeline.push(connection('open'));
    expect(perf.framesReceived).toBe(0);
    expect(clock.frames).toHaveLength(0);
  });

  it('keeps the identity of rows that did not change, so the view skips them', () => {
    const { clock, timeline } = setup();
    timeline.push(status(T1, 'TASK_STATE_WORKING', 'inference turn 1'));
    timeline.push(frame(T1, { frame: 'text', text: 'a', final: false }));
    clock.runFrame();
    const [head, first, text] = timeline.rows;
    timeline.push(frame(T1, { frame: 'text', text: 'b', final: false }));
    clock.runFrame();
    const [head2, first2, text2] = timeline.rows;
    expect(first2).toBe(first);
    expect(text2).not.toBe(text);
    expect((text2 as TextEntry).text).toBe('ab');
    expect((text as TextEntry).text).toBe('a');
    expect(head2).toBe(head);
  });
});

describe('TimelineStore grouping', () => {
  it('groups entries under their task, in the order tasks first appeared', () => {
    const { clock, timeline } = setup();
    timeline.push(status(T1, 'TASK_STATE_WORKING', 'inference turn 1'));
    timeline.push(status(T2, 'TASK_STATE_WORKING', 'inference turn 1'));
    timeline.push(status(T1, 'TASK_STATE_COMPLETED', 'task completed'));
    clock.runFrame();
    expect(timeline.rows.map((r) => `${r.kind}:${'taskId' in r ? r.taskId.slice(-1) : ''}`)).toEqual(['task:1', 'status:1', 'status:1', 'task:2', 'status:2']);
    const [one, two] = taskRows(timeline);
    expect(one).toMatchObject({ state: 'TASK_STATE_COMPLETED', statusText: 'task completed', entryCount: 2 });
    expect(two).toMatchObject({ state: 'TASK_STATE_WORKING', statusText: 'inference turn 1' });
    expect(timeline.taskCount).toBe(2);
  });

  it('coalesces text chunks into one block per inference call, ended by the final chunk', () => {
    const { clock, timeline } = setup();
    timeline.push(frame(T1, { frame: 'thinking', text: 'Two and two ', final: false }));
    timeline.push(frame(T1, { frame: 'thinking', text: 'make four.', final: false }));
    timeline.push(frame(T1, { frame: 'text', text: 'fo', final: false }));
    timeline.push(frame(T1, { frame: 'text', text: 'ur', final: false }));
    clock.runFrame();
    let [thinking, text] = entries(timeline) as TextEntry[];
    expect(thinking).toMatchObject({ kind: 'thinking', text: 'Two and two make four.', done: true });
    expect(text).toMatchObject({ kind: 'text', text: 'four', done: false });

    timeline.push(frame(T1, { frame: 'text', text: '', final: true }));
    timeline.push(frame(T1, { frame: 'text', text: 'The whole answer', final: true }));
    clock.runFrame();
    [thinking, text] = entries(timeline) as TextEntry[];
    const answer = entries(timeline)[2] as TextEntry;
    expect(text).toMatchObject({ text: 'four', done: true });
    expect(answer).toMatchObject({ text: 'The whole answer', done: true });
  });

  it('follows a tool call: input, interleaved output, then exit code and duration from the artifact frame', () => {
    const { clock, timeline } = setup();
    timeline.push(frame(T1, { frame: 'tool-call-started', toolCallId: 'call_1', toolName: 'bash', input: { command: 'uname -s' } }));
    timeline.push(frame(T1, { frame: 'tool-call-progress', toolCallId: 'call_1', stream: 'stdout', text: 'Lin' }));
    timeline.push(frame(T1, { frame: 'tool-call-progress', toolCallId: 'call_1', stream: 'stdout', text: 'ux\n' }));
    timeline.push(frame(T1, { frame: 'tool-call-progress', toolCallId: 'call_1', stream: 'stderr', text: 'warn\n' }));
    clock.runFrame();
    let [tool] = entries(timeline) as ToolEntry[];
    expect(tool).toMatchObject({ kind: 'tool', toolName: 'bash', input: { command: 'uname -s' }, result: null });
    expect(tool.output).toEqual([
      { stream: 'stdout', text: 'Linux\n' },
      { stream: 'stderr', text: 'warn\n' },
    ]);

    const fields = {
      toolName: 'bash',
      content: 'Exit code: 0',
      fenceSource: 'tool:bash',
      toolCallId: 'call_1',
      isError: false,
      durationMs: 10,
      exitCode: 0,
      truncated: false,
    };
    timeline.push(frame(T1, { frame: 'artifact', artifact: fields }));
    clock.runFrame();
    [tool] = entries(timeline) as ToolEntry[];
    expect(tool.result).toEqual(fields);
    expect(entries(timeline)).toHaveLength(1);
  });

  it('shows an artifact frame without a started call as its own tool entry', () => {
    const { clock, timeline } = setup();
    const fields = {
      toolName: 'session-status',
      content: 'ok',
      fenceSource: null,
      toolCallId: null,
      isError: false,
      durationMs: null,
      exitCode: null,
      truncated: false,
    };
    timeline.push(frame(T1, { frame: 'artifact', artifact: fields }));
    clock.runFrame();
    expect(entries(timeline)[0]).toMatchObject({ kind: 'tool', toolName: 'session-status', result: fields });
  });

  it('adds A2A artifacts (response, residue) and replaces a repeat of the same id', () => {
    const { clock, timeline } = setup();
    timeline.push(artifact(T1, 'response', 'four'));
    timeline.push(artifact(T1, 'response', 'four!'));
    clock.runFrame();
    const list = entries(timeline);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ kind: 'artifact', artifact: { artifactId: 'response', parts: [{ text: 'four!' }] } });
  });

  it('opens a task from a task event with its artifacts', () => {
    const { clock, timeline } = setup();
    timeline.push(taskEvent(task(T1, 'TASK_STATE_INPUT_REQUIRED', { artifacts: [{ artifactId: 'prompt', parts: [{ text: 'Which branch?' }] }] })));
    clock.runFrame();
    expect(taskRows(timeline)[0].state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(entries(timeline).map((e) => e.kind)).toEqual(['status', 'artifact']);
  });

  it('takes the state a carrier holds without adding a status entry', () => {
    const { clock, timeline } = setup();
    timeline.push(frame(T1, { frame: 'text', text: 'hi', final: false }, 'TASK_STATE_WORKING'));
    clock.runFrame();
    expect(taskRows(timeline)[0].state).toBe('TASK_STATE_WORKING');
    expect(entries(timeline).map((e) => e.kind)).toEqual(['text']);
  });
});

describe('TimelineStore session frames', () => {
  it('turns gap and lagged into banners, and dismisses them', () => {
    const { clock, timeline } = setup();
    timeline.push(sessionFrame({ frame: 'gap', firstAvailableId: '37' }));
    timeline.push(sessionFrame({ frame: 'lagged', dropped: 12 }));
    clock.runFrame();
    expect(timeline.banners.map((b) => b.kind)).toEqual(['gap', 'lagged']);
    expect(timeline.banners[0].text).toContain('37');
    expect(timeline.banners[1].text).toContain('12 events');
    timeline.dismissBanner(timeline.banners[0].key);
    expect(timeline.banners.map((b) => b.kind)).toEqual(['lagged']);
  });

  it('notes the connection-ack and capsule-closed', () => {
    const { clock, timeline } = setup();
    timeline.push(sessionFrame({ frame: 'connection-ack', role: 'observer', conversationMode: 'stateless' }));
    timeline.push(sessionFrame({ frame: 'capsule-closed' }));
    clock.runFrame();
    expect(timeline.conversationMode).toBe('stateless');
    expect(timeline.closed).toBe(true);
    expect(timeline.rows).toEqual([]);
  });
});

describe('TimelineStore limits', () => {
  it('keeps the tail of long texts and says how much went', () => {
    const { clock, timeline } = setup({ maxTextChars: 10 });
    timeline.push(frame(T1, { frame: 'text', text: '0123456789', final: false }));
    timeline.push(frame(T1, { frame: 'text', text: 'abcde', final: false }));
    clock.runFrame();
    expect(entries(timeline)[0]).toMatchObject({ text: '56789abcde', omitted: 5 });
  });

  it('keeps the tail of tool output', () => {
    const { clock, timeline } = setup({ maxTextChars: 8 });
    timeline.push(frame(T1, { frame: 'tool-call-started', toolCallId: 'c', toolName: 'bash', input: {} }));
    timeline.push(frame(T1, { frame: 'tool-call-progress', toolCallId: 'c', stream: 'stdout', text: 'aaaaaa' }));
    timeline.push(frame(T1, { frame: 'tool-call-progress', toolCallId: 'c', stream: 'stderr', text: 'bbbbbb' }));
    clock.runFrame();
    const tool = entries(timeline)[0] as ToolEntry;
    expect(tool.output).toEqual([
      { stream: 'stdout', text: 'aa' },
      { stream: 'stderr', text: 'bbbbbb' },
    ]);
    expect(tool.omitted).toBe(4);
  });

  it('drops the oldest entries of a task past its cap, with a row saying so', () => {
    const { clock, timeline } = setup({ maxEntriesPerTask: 3 });
    for (let i = 1; i <= 5; i++) timeline.push(status(T1, 'TASK_STATE_WORKING', `inference turn ${i}`));
    clock.runFrame();
    expect(timeline.rows[1]).toMatchObject({ kind: 'more', omitted: 2 });
    expect(entries(timeline).map((e) => (e.kind === 'status' ? e.text : ''))).toEqual(['inference turn 3', 'inference turn 4', 'inference turn 5']);
    expect(taskRows(timeline)[0].entryCount).toBe(5);
  });

  it('drops the oldest tasks past maxTasks', () => {
    const { clock, timeline } = setup({ maxTasks: 2 });
    for (const id of ['tsk_a', 'tsk_b', 'tsk_c']) timeline.push(status(id, 'TASK_STATE_WORKING'));
    clock.runFrame();
    expect(taskRows(timeline).map((t) => t.taskId)).toEqual(['tsk_b', 'tsk_c']);
    expect(timeline.droppedTasks).toBe(1);
  });

  it('collapses finished tasks older than the newest few; a toggle wins over the rule', () => {
    const { clock, timeline } = setup({ keepOpen: 1 });
    timeline.push(status('tsk_a', 'TASK_STATE_COMPLETED', 'task completed'));
    timeline.push(status('tsk_b', 'TASK_STATE_WORKING', 'inference turn 1'));
    timeline.push(status('tsk_c', 'TASK_STATE_COMPLETED', 'task completed'));
    clock.runFrame();
    expect(taskRows(timeline).map((t) => [t.taskId, t.collapsed])).toEqual([
      ['tsk_a', true],
      ['tsk_b', false],
      ['tsk_c', false],
    ]);
    expect(timeline.rows.map((r) => r.kind)).toEqual(['task', 'task', 'status', 'task', 'status']);

    timeline.toggle('tsk_a');
    expect(taskRows(timeline)[0].collapsed).toBe(false);
    expect(timeline.rows.map((r) => r.kind)).toEqual(['task', 'status', 'task', 'status', 'task', 'status']);
    timeline.toggle('tsk_c');
    expect(taskRows(timeline)[2].collapsed).toBe(true);
  });

  it('forgets everything on reset', () => {
    const { clock, timeline } = setup();
    timeline.push(status(T1, 'TASK_STATE_WORKING'));
    timeline.push(sessionFrame({ frame: 'lagged', dropped: 1 }));
    clock.runFrame();
    timeline.push(status(T2, 'TASK_STATE_WORKING'));
    timeline.reset();
    expect(timeline.rows).toEqual([]);
    expect(timeline.banners).toEqual([]);
    expect(timeline.pendingCount).toBe(0);
  });
});
