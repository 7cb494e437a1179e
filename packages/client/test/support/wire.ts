/** Door-shaped StreamResponses for tests (docs/streaming.md). */
import { frameMessageEvent, type MurmurFrame, STREAM_EXTENSION_URI, type StreamResponse, type Task, type TaskState } from '@murmur/protocol';

export const TS = '2026-11-29T15:01:56.063Z';

export function task(id: string, state: TaskState): Task {
  return { id, contextId: 'ctx_1', status: { state, timestamp: TS } };
}

export function status(taskId: string, state: TaskState, text?: string): StreamResponse {
  const message =
    text === undefined
      ? undefined
      : { messageId: `msg_${text.replace(/\W/g, '_')}`, contextId: 'ctx_1', taskId, role: 'ROLE_AGENT' as const, parts: [{ text, mediaType: 'text/plain' }] };
  return { statusUpdate: { taskId, contextId: 'ctx_1', status: { state, timestamp: TS, ...(message ? { message } : {}) } } };
}

export function artifact(taskId: string, text: string): StreamResponse {
  return { artifactUpdate: { taskId, contextId: 'ctx_1', artifact: { artifactId: 'response', name: 'response', parts: [{ text, mediaType: 'text/plain' }] } } };
}

export function carrier(taskId: string, frame: MurmurFrame, state: TaskState = 'TASK_STATE_WORKING'): StreamResponse {
  return { statusUpdate: { taskId, contextId: 'ctx_1', status: { state, timestamp: TS }, metadata: { [STREAM_EXTENSION_URI]: frame as never } } };
}

export function frameMessage(frame: MurmurFrame): StreamResponse {
  return frameMessageEvent(`msg_${frame.frame}`, frame);
}
