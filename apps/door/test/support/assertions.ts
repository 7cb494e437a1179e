/** Assertions on JSON-RPC answers shared by the task-behaviour tests. */
import assert from 'node:assert/strict';
import type { HttpAnswer } from './rpc.js';

const REASONS: Record<number, string> = {
  [-32001]: 'TASK_NOT_FOUND',
  [-32002]: 'TASK_NOT_CANCELABLE',
  [-32004]: 'UNSUPPORTED_OPERATION',
};

/**
 * The answer is a JSON-RPC error with this code; `message` is matched exactly (string) or by pattern. An A2A error
 * (-32001 …) carries one ErrorInfo whose metadata must equal `metadata`; a standard one (-32602) carries no data.
 */
export function assertRpcError(answer: HttpAnswer, code: number, message?: string | RegExp, metadata?: Record<string, string>): void {
  assert.equal(answer.status, 200, answer.text);
  assert.equal(answer.json?.result, undefined, `expected an error, got ${answer.text}`);
  const error = answer.json?.error;
  assert.ok(error, answer.text);
  assert.equal(error.code, code, answer.text);
  if (typeof message === 'string') assert.equal(error.message, message);
  else if (message) assert.match(error.message, message);
  if (REASONS[code]) {
    assert.equal(error.data.length, 1);
    assert.equal(error.data[0]['@type'], 'type.googleapis.com/google.rpc.ErrorInfo');
    assert.equal(error.data[0].reason, REASONS[code]);
    assert.equal(error.data[0].domain, 'a2a-protocol.org');
    if (metadata) assert.deepEqual(error.data[0].metadata, metadata);
  } else {
    assert.equal(error.data, undefined);
  }
  assert.equal(answer.headers.get('a2a-extensions'), null, 'a refusal names no extension');
}

/** The task in a SendMessage answer. */
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON shapes
export function taskOf(answer: HttpAnswer): any {
  assert.equal(answer.status, 200, answer.text);
  assert.ok(answer.json?.result?.task, `expected a task, got ${answer.text}`);
  return answer.json.result.task;
}

/** The result of a successful call. */
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON shapes
export function resultOf(answer: HttpAnswer): any {
  assert.equal(answer.status, 200, answer.text);
  assert.ok(answer.json?.result !== undefined, `expected a result, got ${answer.text}`);
  return answer.json.result;
}

/** A terminal status message as the door writes it: msg_<taskId>_status, ROLE_AGENT, one text part. */
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON shapes
export function assertStatusMessage(task: any, text: string): void {
  assert.deepEqual(task.status.message, {
    messageId: `msg_${task.id}_status`,
    contextId: task.contextId,
    taskId: task.id,
    role: 'ROLE_AGENT',
    parts: [{ text, mediaType: 'text/plain' }],
  });
}
