/** A FakeTurn as OpenAI chat-completions stream chunks, ending `data: [DONE]`; errors in OpenAI's error shape. */
import { type FakeStatus, type FakeTurn, pieces, type WireEvent } from './fake-turn.js';

let sequence = 0;

/** Lazily, one event at a time: a reply of many megabytes starts at once (the door's stall timer is 1 s in tests). */
export function* openAiEvents(turn: FakeTurn, model: string): Generator<WireEvent> {
  const id = `chatcmpl-fake${++sequence}`;
  const created = Math.floor(Date.now() / 1000);
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}): WireEvent => ({
    data: JSON.stringify({ id, object: 'chat.completion.chunk', created, model, system_fingerprint: 'fp_fake', choices, ...extra }),
  });
  const delta = (d: Record<string, unknown>, finish: string | null = null) => chunk([{ index: 0, delta: d, logprobs: null, finish_reason: finish }]);
  yield delta({ role: 'assistant', content: '', refusal: null });
  for (const t of turn.thinking ?? []) yield delta({ reasoning_content: t });
  for (const t of turn.text ?? []) yield delta({ content: t });
  if (turn.refusal !== undefined) yield delta({ refusal: turn.refusal });
  for (const [index, call] of (turn.toolCalls ?? []).entries()) {
    yield delta({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] });
    for (const piece of pieces(JSON.stringify(call.input))) yield delta({ tool_calls: [{ index, function: { arguments: piece } }] });
  }
  const stop = turn.stop ?? ((turn.toolCalls?.length ?? 0) > 0 ? 'tool' : 'end');
  yield delta({}, { end: 'stop', tool: 'tool_calls', length: 'length', filter: 'content_filter' }[stop]);
  if (turn.usage) {
    const u = turn.usage;
    yield chunk([], {
      usage: {
        prompt_tokens: u.input,
        completion_tokens: u.output,
        total_tokens: u.input + u.output,
        prompt_tokens_details: { cached_tokens: u.cached ?? 0, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: u.reasoning ?? 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
      },
    });
  }
  yield { data: '[DONE]' };
}

/** A chunk that is not JSON, as a broken proxy might pass on. */
/** An OpenAI-compatible server's in-stream error chunk, as vLLM and the API send one when a stream fails midway. */
export function openAiStreamError(errorType: string, message?: string): WireEvent {
  return {
    data: JSON.stringify({
      error: { type: errorType, message: message ?? (errorType === 'overloaded_error' ? 'Overloaded' : 'The stream failed'), code: null, param: null },
    }),
  };
}

export const OPENAI_MALFORMED: WireEvent = { data: '{"id":"chatcmpl-broken","choices":[{"delta":{"content":"x"' };

export function openAiErrorBody(status: FakeStatus): string {
  const type = status.errorType ?? (status.status === 429 ? 'rate_limit_exceeded' : status.status === 401 ? 'invalid_request_error' : 'server_error');
  return JSON.stringify({ error: { message: status.message ?? `fake provider error ${status.status}`, type, param: null, code: type } });
}
