/** Stream events as @murmur/client yields them (docs/streaming.md shapes), for feeding the managers. */
import type { ConnectionEvent, MurmurStreamEvent, StreamDataEvent } from '@murmur/client';
import { carrierEvent, frameMessageEvent, type MurmurFrame, type Task, type TaskState } from '@murmur/protocol';

const CTX = 'ctx_0199c4e2f1b7712a9d3e4f5061728394';
export const T1 = 'tsk_0199c4e2f1b7712a9d3e4f5061728391';
export const T2 = 'tsk_0199c4e2f1b7712a9d3e4f5061728392';
const AT = '2026-11-29T15:01:56.066Z';

let nextId = 0;

export function status(taskId: string, state: TaskState, text?: string): StreamDataEvent {
  const message =
    text === undefined
      ? undefined
      : { messageId: `msg_${nextId++}`, contextId: CTX, taskId, role: 'ROLE_AGENT' as const, parts: [{ text, mediaType: 'text/plain' }] };
  return {
    kind: 'status',
    id: String(nextId++),
    taskId,
    frame: null,
    response: { statusUpdate: { taskId, contextId: CTX, status: { state, timestamp: AT, ...(message ? { message } : {}) } } },
  };
}

export function frame(taskId: string, f: MurmurFrame, state: TaskState = 'TASK_STATE_WORKING'): StreamDataEvent {
  return { kind: 'frame', id: String(nextId++), taskId, frame: f, response: carrierEvent(taskId, CTX, state, AT, f) };
}

export function sessionFrame(f: MurmurFrame): StreamDataEvent {
  return { kind: 'frame', id: null, taskId: null, frame: f, response: frameMessageEvent(`msg_${nextId++}`, f) };
}

export function artifact(taskId: string, artifactId: string, text: string): StreamDataEvent {
  return {
    kind: 'artifact',
    id: String(nextId++),
    taskId,
    frame: null,
    response: { artifactUpdate: { taskId, contextId: CTX, artifact: { artifactId, name: artifactId, parts: [{ text, mediaType: 'text/plain' }] } } },
  };
}

export function task(id: string, state: TaskState, extra: Partial<Task> = {}): Task {
  return { id, contextId: CTX, status: { state, timestamp: AT }, ...extra };
}

export function taskEvent(t: Task): StreamDataEvent {
  return { kind: 'task', id: null, taskId: t.id, frame: null, response: { task: t }, resumed: false };
}

export function connection(state: ConnectionEvent['state'], extra: Partial<ConnectionEvent> = {}): MurmurStreamEvent {
  return { kind: 'connection', state, attempt: 0, lastEventId: null, ...extra };
}

/** A scheduler the test drives: frames and timers run only when it says so. */
export function manualScheduler() {
  const frames: (() => void)[] = [];
  let now = 0;
  return {
    frames,
    scheduler: {
      requestFrame: (cb: () => void) => {
        frames.push(cb);
        return frames.length;
      },
      cancelFrame: () => {
        frames.length = 0;
      },
      setTimer: () => 1,
      clearTimer: () => {},
      now: () => now,
    },
    /** Runs the pending frame callback (at most one is ever pending). */
    runFrame() {
      const cb = frames.shift();
      cb?.();
    },
    advance(ms: number) {
      now += ms;
    },
  };
}
