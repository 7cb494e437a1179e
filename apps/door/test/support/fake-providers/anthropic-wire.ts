/** A FakeTurn as Anthropic messages stream events (message_start … message_stop, with a ping); errors in Anthropic's shape. */
import { createHash } from 'node:crypto';
import { type FakeStatus, type FakeTurn, pieces, type WireEvent } from './fake-turn.js';

let sequence = 0;

const ev = (type: string, body: Record<string, unknown>): WireEvent => ({ event: type, data: JSON.stringify({ type, ...body }) });

/** A deterministic stand-in for a thinking block's signature: base64 of a digest of its text. */
export function fakeSignature(thinking: string): string {
  return createHash('sha256').update(thinking).digest('base64');
}

/** Lazily, one event at a time (see openAiEvents). */
export function* anthropicEvents(turn: FakeTurn, model: string): Generator<WireEvent> {
  const u = turn.usage;
  const cached = u?.cached ?? 0;
  const cacheWrite = u?.cacheWrite ?? 0;
  yield ev('message_start', {
    message: {
      id: `msg_fake${++sequence}`,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: u ? u.input - cached - cacheWrite : 0,
        cache_creation_input_tokens: cacheWrite,
        cache_read_input_tokens: cached,
        output_tokens: 1,
      },
    },
  });
  yield ev('ping', {});
  let index = 0;
  if (turn.thinking && turn.thinking.length > 0) {
    yield ev('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } });
    for (const t of turn.thinking) yield ev('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: t } });
    yield ev('content_block_delta', { index, delta: { type: 'signature_delta', signature: fakeSignature(turn.thinking.join('')) } });
    yield ev('content_block_stop', { index });
    index += 1;
  }
  if (turn.text && turn.text.length > 0) {
    yield ev('content_block_start', { index, content_block: { type: 'text', text: '' } });
    for (const t of turn.text) yield ev('content_block_delta', { index, delta: { type: 'text_delta', text: t } });
    yield ev('content_block_stop', { index });
    index += 1;
  }
  for (const call of turn.toolCalls ?? []) {
    yield ev('content_block_start', { index, content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} } });
    yield ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: '' } });
    for (const piece of pieces(JSON.stringify(call.input)))
      yield ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } });
    yield ev('content_block_stop', { index });
    index += 1;
  }
  const stop = turn.stop ?? ((turn.toolCalls?.length ?? 0) > 0 ? 'tool' : 'end');
  yield ev('message_delta', {
    delta: { stop_reason: { end: 'end_turn', tool: 'tool_use', length: 'max_tokens', filter: 'refusal' }[stop], stop_sequence: null },
    usage: { output_tokens: u?.output ?? 0 },
  });
  yield ev('message_stop', {});
}

/** Anthropic's in-stream error event (an overload mid-stream is delivered this way, not as an HTTP status). */
export function anthropicStreamError(errorType: string, message?: string): WireEvent {
  return ev('error', { error: { type: errorType, message: message ?? (errorType === 'overloaded_error' ? 'Overloaded' : 'The stream failed') } });
}

/** A text delta for a content block no content_block_start opened. */
export const ANTHROPIC_ORPHAN_DELTA: WireEvent = ev('content_block_delta', { index: 7, delta: { type: 'text_delta', text: 'from nowhere' } });

/** What a newer messages API may add, which the driver must pass over (docs/drivers.md: "unknown events and deltas"). */
export const ANTHROPIC_UNKNOWN_PARTS: WireEvent[] = [
  ev('message_annotation', { annotation: { kind: 'newer-api' } }),
  ev('content_block_delta', { index: 0, delta: { type: 'citations_delta', citation: { cited_text: 'x' } } }),
  ev('content_block_delta', { index: 0, delta: { type: 'text_delta' } }),
];

export const ANTHROPIC_MALFORMED: WireEvent = {
  event: 'content_block_delta',
  data: '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":',
};

export function anthropicErrorBody(status: FakeStatus): string {
  const type =
    status.errorType ??
    (
      {
        400: 'invalid_request_error',
        401: 'authentication_error',
        403: 'permission_error',
        404: 'not_found_error',
        429: 'rate_limit_error',
        529: 'overloaded_error',
      } as Record<number, string>
    )[status.status] ??
    'api_error';
  return JSON.stringify({ type: 'error', error: { type, message: status.message ?? `fake provider error ${status.status}` }, request_id: 'req_fake' });
}
