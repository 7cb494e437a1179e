import { describe, expect, it } from 'vitest';
import { isCollapsed, materializeRows, taskIndex, trimOutput } from '../src/lib/timeline/timeline-materializer';
import { TimelineReducer } from '../src/lib/timeline/timeline-reducer';
import type { TaskHeaderRow, TextEntry, ToolEntry } from '../src/lib/timeline/timeline-rows';
import { FrameBatcher } from '../src/lib/timeline/timeline-scheduler';
import { artifact, frame, manualScheduler, sessionFrame, status, T1, T2, task, taskEvent } from './support/events';

describe('FrameBatcher', () => {
  it('holds items until the frame, asks for one frame and one timer per batch, and hands the batch over in order', () => {
    const requested: string[] = [];
    let frame: (() => void) | null = null;
    const seen: number[][] = [];
    const batcher: FrameBatcher<number> = new FrameBatcher<number>(() => seen.push(batcher.take()), {
      fallbackMs: 99,
      scheduler: {
        requestFrame: (cb) => {
          requested.push('frame');
          frame = cb;
          return 1;
        },
        cancelFrame: () => requested.push('cancel-frame'),
        setTimer: (_cb, ms) => requested.push(`timer ${ms}`),
        clearTimer: () => requested.push('clear-timer'),
      },
    });
    batcher.push(1);
    batcher.push(2);
    batcher.push(3);
    expect(batcher.size).toBe(3);
    expect(requested).toEqual(['frame', 'timer 99']);
    frame!();
    expect(seen).toEqual([[1, 2, 3]]);
    expect(batcher.size).toBe(0);
    batcher.cancel();
    expect(requested.slice(2)).toEqual(['cancel-frame', 'clear-timer']);
    batcher.push(4);
    expect(requested.slice(4)).toEqual(['frame', 'timer 99']);
    batcher.clear();
    expect(batcher.size).toBe(0);
  });

  it('falls back to the timer when frames do not come', () => {
    let timer: (() => void) | null = null;
    let flushed = 0;
    const batcher = new FrameBatcher<string>(() => (flushed += batcher.take().length), {
      scheduler: { requestFrame: () => 1, cancelFrame: () => {}, setTimer: (cb) => (timer = cb), clearTimer: () => {} },
    });
    batcher.push('a');
    timer!();
    expect(flushed).toBe(1);
  });
});

describe('TimelineReducer', () => {
  it('shows a harness’s quota and suggested-prompt frames as notes of its task', () => {
    const reducer = new TimelineReducer();
    reducer.apply(taskEvent(task(T1, 'TASK_STATE_WORKING')));
    reducer.apply(
      frame(T1, {
        frame: 'quota',
        windows: [
          { name: 'five-hour', used: 0.42, resetsAt: '2026-12-07T06:00:00Z', windowMinutes: 300, state: 'warning' },
          { name: 'primary', used: 0.1 },
        ],
      }),
    );
    reducer.apply(frame(T1, { frame: 'suggested-prompt', text: 'run the tests' }));
    const notes = reducer.tasks
      .get(T1)!
      .cells.map((c) => c.draft)
      .filter((e) => e.kind === 'note')
      .map((e) => (e as { text: string }).text);
    expect(notes).toEqual(['quota: five-hour 42% used (warning) resets 2026-12-07T06:00:00Z; primary 10% used', 'suggested next prompt: run the tests']);
  });

  it('groups events by task in arrival order, coalescing text chunks into one block', () => {
    const reducer = new TimelineReducer();
    reducer.apply(taskEvent(task(T1, 'TASK_STATE_WORKING')));
    reducer.apply(frame(T1, { frame: 'text', text: 'Hel', final: false }));
    reducer.apply(frame(T1, { frame: 'text', text: 'lo', final: false }));
    reducer.apply(status(T2, 'TASK_STATE_WORKING', 'inference turn 1'));
    reducer.apply(frame(T1, { frame: 'text', text: '', final: true }));
    expect([...reducer.tasks.keys()]).toEqual([T1, T2]);
    const t1 = reducer.tasks.get(T1)!;
    expect(t1.cells.map((c) => c.draft.kind)).toEqual(['status', 'text']);
    expect((t1.cells[1].draft as TextEntry).text).toBe('Hello');
    expect((t1.cells[1].draft as TextEntry).done).toBe(true);
    expect(reducer.tasks.get(T2)!.statusText).toBe('inference turn 1');
  });

  it('replaces an artifact by id, keeps session flags and banners, and caps tasks and entries', () => {
    const reducer = new TimelineReducer({ limits: { maxTasks: 1, maxEntriesPerTask: 2, maxBanners: 1 }, now: () => 42 });
    reducer.apply(artifact(T1, 'response', 'four'));
    reducer.apply(artifact(T1, 'response', 'five'));
    expect(reducer.tasks.get(T1)!.cells).toHaveLength(1);
    reducer.apply(status(T1, 'TASK_STATE_WORKING'));
    reducer.apply(status(T1, 'TASK_STATE_WORKING'));
    expect(reducer.tasks.get(T1)!.dropped).toBe(1);
    reducer.apply(status(T2, 'TASK_STATE_WORKING'));
    expect([...reducer.tasks.keys()]).toEqual([T2]);
    expect(reducer.droppedTasks).toBe(1);
    reducer.apply(sessionFrame({ frame: 'gap', firstAvailableId: '7' }));
    reducer.apply(sessionFrame({ frame: 'lagged', dropped: 3 }));
    expect(reducer.banners.map((b) => [b.kind, b.atMs])).toEqual([['lagged', 42]]);
    reducer.apply(sessionFrame({ frame: 'capsule-closed' } as never));
    expect(reducer.closed).toBe(true);
    reducer.reset();
    expect([reducer.tasks.size, reducer.banners.length, reducer.closed, reducer.droppedTasks]).toEqual([0, 0, false, 0]);
  });

  it('pairs tool progress and results with their call, and keeps orphans', () => {
    const reducer = new TimelineReducer();
    reducer.apply(frame(T1, { frame: 'tool-call-started', toolCallId: 'c1', toolName: 'shell', input: { cmd: 'ls' } } as never));
    reducer.apply(frame(T1, { frame: 'tool-call-progress', toolCallId: 'c1', stream: 'stdout', text: 'a' } as never));
    reducer.apply(frame(T1, { frame: 'tool-call-progress', toolCallId: 'c1', stream: 'stdout', text: 'b' } as never));
    reducer.apply(frame(T1, { frame: 'tool-call-progress', toolCallId: 'c9', stream: 'stderr', text: '!' } as never));
    const tools = reducer.tasks.get(T1)!.cells.map((c) => c.draft as ToolEntry);
    expect(tools.map((t) => [t.toolName, t.output])).toEqual([
      ['shell', [{ stream: 'stdout', text: 'ab' }]],
      ['(tool)', [{ stream: 'stderr', text: '!' }]],
    ]);
  });
});

describe('materializeRows', () => {
  it('keeps the identity of rows that did not change and replaces those that did', () => {
    const reducer = new TimelineReducer();
    reducer.apply(status(T1, 'TASK_STATE_WORKING'));
    reducer.apply(status(T2, 'TASK_STATE_WORKING'));
    const first = materializeRows(reducer, reducer.limits);
    reducer.apply(frame(T2, { frame: 'text', text: 'x', final: false }));
    const second = materializeRows(reducer, reducer.limits);
    expect(second[0]).toBe(first[0]);
    expect(second[1]).toBe(first[1]);
    expect(second[2]).not.toBe(first[2]);
    expect(second.map((r) => r.kind)).toEqual(['task', 'status', 'task', 'status', 'text']);
  });

  it('collapses finished tasks older than the newest keepOpen, unless the operator chose', () => {
    const reducer = new TimelineReducer({ limits: { keepOpen: 1 } });
    reducer.apply(status(T1, 'TASK_STATE_COMPLETED'));
    reducer.apply(status(T2, 'TASK_STATE_COMPLETED'));
    const header = (rows: ReturnType<typeof materializeRows>, id: string) => rows.find((r): r is TaskHeaderRow => r.kind === 'task' && r.taskId === id)!;
    let rows = materializeRows(reducer, reducer.limits);
    expect([header(rows, T1).collapsed, header(rows, T2).collapsed]).toEqual([true, false]);
    expect(isCollapsed(reducer.tasks.get(T1)!, taskIndex(reducer, T1), 2, 1)).toBe(true);
    reducer.setCollapsed(T1, false);
    rows = materializeRows(reducer, reducer.limits);
    expect(header(rows, T1).collapsed).toBe(false);
    expect(taskIndex(reducer, 'tsk_none')).toBe(-1);
  });

  it('trims long texts and tool output to their last characters, counting what went', () => {
    const reducer = new TimelineReducer({ limits: { maxTextChars: 4 } });
    reducer.apply(frame(T1, { frame: 'text', text: 'abcdefgh', final: true }));
    const rows = materializeRows(reducer, reducer.limits);
    expect(rows[1]).toMatchObject({ kind: 'text', text: 'efgh', omitted: 4 });
    const tool: ToolEntry = {
      kind: 'tool',
      key: 'k',
      taskId: T1,
      toolCallId: null,
      toolName: 't',
      input: null,
      output: [
        { stream: 'stdout', text: 'abc' },
        { stream: 'stderr', text: 'defg' },
      ],
      omitted: 0,
      result: null,
      at: null,
    };
    trimOutput(tool, 3);
    expect([tool.output, tool.omitted]).toEqual([[{ stream: 'stderr', text: 'efg' }], 4]);
  });
});

// The manual scheduler the store tests use drives the batcher the same way.
it('the test scheduler runs one frame per batch', () => {
  const clock = manualScheduler();
  const batcher: FrameBatcher<number> = new FrameBatcher<number>(() => batcher.take(), { scheduler: clock.scheduler });
  batcher.push(1);
  batcher.push(2);
  expect(clock.frames).toHaveLength(1);
  clock.runFrame();
  expect(batcher.size).toBe(0);
});
