/** Building the user messages the door reads (seed 000, "Messages"). */
import { DOOR_EXTENSION_URI, type JsonObject, type Message } from '@murmur/protocol';

export interface TextMessageOptions {
  /** The context to start the task in; the door gives a new task without one a fresh `ctx_…`. */
  contextId?: string;
  /** The task this message continues: it must be waiting in TASK_STATE_INPUT_REQUIRED. */
  taskId?: string;
  /** Up to 16 tasks the message refers to; the agent is told how each stands. */
  referenceTaskIds?: string[];
  /**
   * The message id; generated once when absent. It is the message's idempotency key: a retried request sends the
   * same id (STYLE 7), though the door does not de-duplicate on it today.
   */
  messageId?: string;
  /** Message metadata. */
  metadata?: JsonObject;
  /**
   * Ask the capsule to forget the harness session this context names, starting a new conversation (a capsule on
   * `inference.transport: process` only; others refuse it -32602). Sets the door extension's `forgetSession`.
   */
  forgetSession?: boolean;
}

/** A fresh message id: `msg-` and a random UUID. */
export function newMessageId(): string {
  const crypto = globalThis.crypto;
  if (typeof crypto?.randomUUID === 'function') return `msg-${crypto.randomUUID()}`;
  // randomUUID needs a secure context in browsers; getRandomValues does not.
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `msg-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/** A ROLE_USER message with one text part. */
export function textMessage(text: string, options: TextMessageOptions = {}): Message {
  const message: Message = { messageId: options.messageId ?? newMessageId(), role: 'ROLE_USER', parts: [{ text }] };
  if (options.contextId !== undefined) message.contextId = options.contextId;
  if (options.taskId !== undefined) message.taskId = options.taskId;
  if (options.referenceTaskIds !== undefined) message.referenceTaskIds = [...options.referenceTaskIds];
  if (options.metadata !== undefined) message.metadata = { ...options.metadata };
  if (options.forgetSession) {
    message.metadata = { ...message.metadata, [DOOR_EXTENSION_URI]: { forgetSession: true } };
    message.extensions = [DOOR_EXTENSION_URI];
  }
  return message;
}
