/**
 * A FakeTurn as OpenAI Responses stream events (response.created … response.completed), the wire Codex speaks
 * (`wire_api = "responses"`): reasoning summaries, message text, function calls (a namespaced one for an MCP server's
 * tool, as Codex lists them) and usage with cached tokens. Errors take OpenAI's shape (openai-wire.ts).
 */
import type { FakeTurn, WireEvent } from './fake-turn.js';
import { pieces } from './fake-turn.js';

let sequence = 0;

const ev = (type: string, body: Record<string, unknown>): WireEvent => ({ event: type, data: JSON.stringify({ type, ...body }) });

/** Lazily, one event at a time (see openAiEvents). */
export function* responsesEvents(turn: FakeTurn, model: string): Generator<WireEvent> {
  const id = `resp_fake${++sequence}`;
  const created = Math.floor(Date.now() / 1000);
  const response = { id, object: 'response', created_at: created, status: 'in_progress', model, output: [] as unknown[] };
  let n = 0;
  const seq = () => ({ sequence_number: n++ });
  yield ev('response.created', { response, ...seq() });
  const output: unknown[] = [];
  let index = 0;
  if (turn.thinking && turn.thinking.length > 0) {
    const item = { type: 'reasoning', id: `rs_${id}`, summary: [] as unknown[] };
    yield ev('response.output_item.added', { output_index: index, item, ...seq() });
    yield ev('response.reasoning_summary_part.added', {
      item_id: item.id,
      output_index: index,
      summary_index: 0,
      part: { type: 'summary_text', text: '' },
      ...seq(),
    });
    for (const t of turn.thinking)
      yield ev('response.reasoning_summary_text.delta', { item_id: item.id, output_index: index, summary_index: 0, delta: t, ...seq() });
    const text = turn.thinking.join('');
    yield ev('response.reasoning_summary_text.done', { item_id: item.id, output_index: index, summary_index: 0, text, ...seq() });
    yield ev('response.reasoning_summary_part.done', {
      item_id: item.id,
      output_index: index,
      summary_index: 0,
      part: { type: 'summary_text', text },
      ...seq(),
    });
    const done = { ...item, summary: [{ type: 'summary_text', text }] };
    yield ev('response.output_item.done', { output_index: index, item: done, ...seq() });
    output.push(done);
    index += 1;
  }
  if (turn.text && turn.text.length > 0) {
    const item = { type: 'message', id: `msg_${id}`, role: 'assistant', status: 'in_progress', content: [] as unknown[] };
    yield ev('response.output_item.added', { output_index: index, item, ...seq() });
    yield ev('response.content_part.added', {
      item_id: item.id,
      output_index: index,
      content_index: 0,
      part: { type: 'output_text', text: '', annotations: [] },
      ...seq(),
    });
    for (const t of turn.text)
      yield ev('response.output_text.delta', { item_id: item.id, output_index: index, content_index: 0, delta: t, logprobs: [], ...seq() });
    const text = turn.text.join('');
    yield ev('response.output_text.done', { item_id: item.id, output_index: index, content_index: 0, text, logprobs: [], ...seq() });
    const part = { type: 'output_text', text, annotations: [] };
    yield ev('response.content_part.done', { item_id: item.id, output_index: index, content_index: 0, part, ...seq() });
    const done = { ...item, status: 'completed', content: [part] };
    yield ev('response.output_item.done', { output_index: index, item: done, ...seq() });
    output.push(done);
    index += 1;
  }
  for (const call of turn.toolCalls ?? []) {
    const args = JSON.stringify(call.input);
    const item = {
      type: 'function_call',
      id: `fc_${call.id}`,
      call_id: call.id,
      name: call.name,
      ...(call.namespace ? { namespace: call.namespace } : {}),
      arguments: '',
      status: 'in_progress',
    };
    yield ev('response.output_item.added', { output_index: index, item, ...seq() });
    for (const piece of pieces(args)) yield ev('response.function_call_arguments.delta', { item_id: item.id, output_index: index, delta: piece, ...seq() });
    yield ev('response.function_call_arguments.done', { item_id: item.id, output_index: index, arguments: args, ...seq() });
    const done = { ...item, arguments: args, status: 'completed' };
    yield ev('response.output_item.done', { output_index: index, item: done, ...seq() });
    output.push(done);
    index += 1;
  }
  const u = turn.usage;
  const usage = u
    ? {
        input_tokens: u.input,
        input_tokens_details: { cached_tokens: u.cached ?? 0 },
        output_tokens: u.output,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: u.input + u.output,
      }
    : null;
  yield ev('response.completed', { response: { ...response, status: 'completed', output, usage }, ...seq() });
}
