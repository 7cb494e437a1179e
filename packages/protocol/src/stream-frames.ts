/**
 * Murmur's stream frames as the v1.0 door carries them (docs/streaming.md): each frame sits in a StreamResponse's
 * metadata under the stream extension's URI, with its fields in camelCase. A frame of a task rides a carrier
 * statusUpdate of that task; a frame with no task is a message event whose one text part names the frame.
 */
import type { QuotaWindowFrameFields, ToolArtifactFrameFields } from './stream-types.js';
import type { TaskState } from './task-states.js';
import type { JsonObject, JsonValue, Message, StreamResponse, TaskStatusUpdateEvent } from './types.js';
import { STREAM_EXTENSION_URI } from './uris.js';

export type MurmurFrame =
  | { frame: 'text'; text: string; final: boolean }
  | { frame: 'thinking'; text: string; final: false }
  | { frame: 'tool-call-started'; toolCallId: string; toolName: string; input: JsonValue }
  | { frame: 'tool-call-progress'; toolCallId: string; stream: 'stdout' | 'stderr'; text: string }
  | { frame: 'artifact'; artifact: ToolArtifactFrameFields }
  /** Only a harness sends these two (transport: process): its subscription windows, every one reported so far, and a predicted next prompt. */
  | { frame: 'quota'; windows: QuotaWindowFrameFields[] }
  | { frame: 'suggested-prompt'; text: string }
  | { frame: 'gap'; firstAvailableId: string }
  | { frame: 'lagged'; dropped: number }
  | { frame: 'connection-ack'; role: 'observer'; conversationMode: 'stateless' | 'threaded' }
  | { frame: 'capsule-closed' };

export type MurmurFrameName = MurmurFrame['frame'];

/** The murmur frame a StreamResponse carries, or null for a plain A2A event. */
export function murmurFrameOf(response: StreamResponse): MurmurFrame | null {
  const metadata: JsonObject | undefined =
    'statusUpdate' in response ? response.statusUpdate.metadata : 'message' in response ? response.message.metadata : undefined;
  const frame = metadata?.[STREAM_EXTENSION_URI];
  if (frame === null || typeof frame !== 'object' || Array.isArray(frame) || typeof frame.frame !== 'string') return null;
  return frame as unknown as MurmurFrame;
}

/** A carrier: a statusUpdate of the task in its current state, written now, holding one frame. */
export function carrierEvent(
  taskId: string,
  contextId: string,
  state: TaskState,
  timestamp: string,
  frame: MurmurFrame,
): { statusUpdate: TaskStatusUpdateEvent } {
  return {
    statusUpdate: {
      taskId,
      contextId,
      status: { state, timestamp },
      metadata: { [STREAM_EXTENSION_URI]: frame as unknown as JsonObject },
    },
  };
}

/** A frame with no task: a ROLE_AGENT message whose one text part names the frame. */
export function frameMessageEvent(messageId: string, frame: MurmurFrame): { message: Message } {
  return {
    message: {
      messageId,
      role: 'ROLE_AGENT',
      parts: [{ mediaType: 'text/plain', text: frame.frame }],
      metadata: { [STREAM_EXTENSION_URI]: frame as unknown as JsonObject },
    },
  };
}

/**
 * The kind a client tells a stream's events apart by, beside the task id and the event id (seed 001: "the task id,
 * the event type and the id together"): the murmur frame's name, or `task`, `status`, `artifact-update`, `message`.
 */
export function streamEventKind(response: StreamResponse): string {
  const frame = murmurFrameOf(response);
  if (frame) return frame.frame;
  if ('task' in response) return 'task';
  if ('statusUpdate' in response) return 'status';
  if ('artifactUpdate' in response) return 'artifact-update';
  return 'message';
}
