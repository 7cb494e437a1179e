import { type Attributes, type Span, SpanStatusCode } from '@opentelemetry/api';
import type { A2aFacts } from './trace-context.js';

/** The agent a span is about, as an Agent Card describes it: `gen_ai.agent.*` on a2a spans (a2a.md). */
export interface CardAgent {
  name: string;
  version: string;
  description: string;
}

/**
 * The a2a.* attributes (a2a.md) of a request's facts, with the peer's address when it is known, and the agent of the
 * Agent Card the span can read (a server span: the door's own; a client span: none, as the door calls by address).
 */
export function a2aAttributes(
  method: string,
  facts: A2aFacts,
  server: { address: string; port: number } | null,
  protocolVersion?: string,
  agent?: CardAgent,
): Attributes {
  const out: Attributes = { 'a2a.method.name': method };
  if (facts.taskId !== undefined) out['a2a.task.id'] = facts.taskId;
  if (facts.messageId !== undefined) out['a2a.message.id'] = facts.messageId;
  if (facts.referenceTaskIds !== undefined) out['a2a.message.reference_task_ids'] = facts.referenceTaskIds;
  if (facts.contextId !== undefined) out['gen_ai.conversation.id'] = facts.contextId;
  if (agent !== undefined) {
    out['gen_ai.agent.name'] = agent.name;
    out['gen_ai.agent.version'] = agent.version;
    out['gen_ai.agent.description'] = agent.description;
  }
  if (protocolVersion) out['a2a.protocol.version'] = protocolVersion;
  if (server !== null) {
    out['server.address'] = server.address;
    out['server.port'] = server.port;
  }
  return out;
}

/** Ends an a2a.client or a2a.server span with what its answer said; an error answer sets error.type and status ERROR. */
export function endA2aSpan(span: Span, answer: A2aFacts, endTime: number): void {
  if (answer.taskId !== undefined) span.setAttribute('a2a.task.id', answer.taskId);
  if (answer.state !== undefined) span.setAttribute('a2a.task.state', answer.state);
  if (answer.contextId !== undefined) span.setAttribute('gen_ai.conversation.id', answer.contextId);
  if (answer.errorType !== undefined) {
    span.setAttribute('error.type', answer.errorType);
    span.setStatus({ code: SpanStatusCode.ERROR, message: `the request failed: ${answer.errorType}` });
  }
  span.end(endTime);
}
