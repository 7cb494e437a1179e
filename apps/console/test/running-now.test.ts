import type { ConsoleRunningSnapshot, RunningDoor, RunningTask } from '@murmur/protocol';
import { describe, expect, it, vi } from 'vitest';
import { RunningNowFeed } from '../src/lib/running/running-now.svelte';
import { activityText, busyMembers, doorLabel, doorStateText, totals, waitingTasks } from '../src/lib/running/running-rows';
import { useConsoleFetch } from './support/console-fetch';

const task = (taskId: string, over: Partial<RunningTask> = {}): RunningTask => ({
  taskId,
  contextId: 'ctx_a',
  state: 'TASK_STATE_WORKING',
  createdAt: null,
  activityAt: '2026-12-01T10:00:00.000Z',
  activity: { kind: 'turn', turn: 1 },
  ...over,
});

const door = (key: string, over: Partial<RunningDoor> = {}): RunningDoor => ({
  key,
  url: `http://${key}`,
  origin: 'local',
  name: 'cap',
  sessionId: 'ses_a',
  formation: null,
  state: 'live',
  problem: null,
  retryAt: null,
  counts: {},
  truncated: false,
  tasks: [],
  moreTasks: 0,
  ...over,
});

const snapshot = (doors: RunningDoor[]): ConsoleRunningSnapshot => ({
  at: '2026-12-01T10:00:00.000Z',
  doors,
  unwatched: 0,
  bounds: { doors: 100, tasksPerDoor: 200, shownPerDoor: 10 },
});

describe('running-now rows', () => {
  it('says each activity and door state in words', () => {
    expect(activityText({ kind: 'queued' })).toBe('queued');
    expect(activityText({ kind: 'turn', turn: 3 })).toBe('turn 3');
    expect(activityText({ kind: 'tool', tool: 'bash', toolCallId: 'call_1', turn: 2, startedAt: '' })).toBe('tool bash (turn 2)');
    expect(activityText({ kind: 'tool', tool: 'bash', toolCallId: 'call_1', turn: null, startedAt: '' })).toBe('tool bash');
    expect(activityText({ kind: 'input', prompt: 'Why?' })).toBe('waiting for input');
    expect(activityText({ kind: 'status', text: 'resumed' })).toBe('resumed');
    expect(activityText({ kind: 'unknown' })).toBe('—');
    expect(doorStateText('needs-token')).toBe('needs a token');
    expect(doorLabel(door('127.0.0.1:1', { formation: { name: 'crew', member: 'lead', entry: true } }))).toBe('lead (crew)');
    expect(doorLabel(door('127.0.0.1:1', { name: null }))).toBe('127.0.0.1:1');
  });

  it('gathers the waiting tasks across doors, the busy members, and the totals', () => {
    const waiting = task('tsk_2', { state: 'TASK_STATE_INPUT_REQUIRED', activity: { kind: 'input', prompt: 'Which?' } });
    const s = snapshot([
      door('127.0.0.1:1', { tasks: [waiting, task('tsk_3')], counts: { TASK_STATE_INPUT_REQUIRED: 1, TASK_STATE_WORKING: 4 }, moreTasks: 3 }),
      door('127.0.0.1:2', { formation: { name: 'crew', member: 'lead', entry: true }, tasks: [task('tsk_1')], counts: { TASK_STATE_WORKING: 1 } }),
      door('127.0.0.1:3', { formation: { name: 'crew', member: 'helper', entry: false } }),
      door('127.0.0.1:4', { state: 'unreachable' }),
    ]);
    expect(waitingTasks(s).map((r) => r.task.taskId)).toEqual(['tsk_2']);
    expect(busyMembers(s).map((r) => [r.door.formation?.member, r.task.taskId])).toEqual([['lead', 'tsk_1']]);
    expect(totals(s)).toEqual({ doors: 4, live: 3, tasks: 6, waiting: 1 });
  });
});

describe('RunningNowFeed', () => {
  it('reads snapshots from one event source, and says when it reconnects', () => {
    const source = { onopen: null, onmessage: null, onerror: null, close: vi.fn() } as unknown as EventSource;
    const open = vi.fn(() => source);
    const feed = new RunningNowFeed({ open });
    feed.start();
    expect(open).toHaveBeenCalledWith('/api/running/stream');
    expect(feed.link).toBe('connecting');
    const s = snapshot([door('127.0.0.1:1')]);
    source.onmessage?.({ data: JSON.stringify(s) } as MessageEvent<string>);
    expect(feed.snapshot).toEqual(s);
    expect(feed.link).toBe('live');
    source.onerror?.(new Event('error'));
    expect(feed.link).toBe('reconnecting');
    feed.stop();
    expect(source.close).toHaveBeenCalled();
  });

  it('asks a door again with one POST, and says when mur console refuses', async () => {
    const fetcher = vi.fn(async () => new Response(JSON.stringify({ error: 'not_found', message: 'x' }), { status: 404 }));
    useConsoleFetch(fetcher);
    const feed = new RunningNowFeed();
    await feed.askAgain('127.0.0.1:9');
    expect(fetcher).toHaveBeenCalledWith('/api/running/doors/127.0.0.1%3A9/retry', { method: 'POST' });
    expect(feed.askProblem).toBe('Ask again for 127.0.0.1:9: mur console answered HTTP 404');
  });
});
