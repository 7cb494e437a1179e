/**
 * The names the GenAI semantic conventions define (open-telemetry/semantic-conventions-genai, docs/telemetry.md
 * "Conventions followed"), copied from that repository at the commits docs/telemetry.md names, so a trace can be
 * checked against them: every `gen_ai.*` and `a2a.*` attribute a span carries, every well-known value it takes where
 * the convention says the well-known value MUST be used, every span's name format, every metric's name.
 */

/** `docs/registry/attributes/gen-ai.md` at 002c8a6ea1c8a42b14a4527db83b3cabcded610a. */
const GENAI_ATTRIBUTES = new Set(
  [
    'agent.description',
    'agent.id',
    'agent.name',
    'agent.version',
    'conversation.id',
    'data_source.id',
    'embeddings.dimension.count',
    'evaluation.explanation',
    'evaluation.name',
    'evaluation.score.label',
    'evaluation.score.value',
    'input.messages',
    'memory.query.text',
    'memory.record.count',
    'memory.record.id',
    'memory.records',
    'memory.store.id',
    'operation.name',
    'output.messages',
    'output.type',
    'prompt.name',
    'provider.name',
    'request.choice.count',
    'request.encoding_formats',
    'request.frequency_penalty',
    'request.max_tokens',
    'request.model',
    'request.presence_penalty',
    'request.seed',
    'request.stop_sequences',
    'request.stream',
    'request.temperature',
    'request.top_k',
    'request.top_p',
    'response.finish_reasons',
    'response.id',
    'response.model',
    'response.time_to_first_chunk',
    'retrieval.documents',
    'retrieval.query.text',
    'system_instructions',
    'token.cache',
    'token.modality',
    'token.phase',
    'token.type',
    'tool.call.arguments',
    'tool.call.id',
    'tool.call.result',
    'tool.definitions',
    'tool.description',
    'tool.name',
    'tool.type',
    'usage.audio.input_tokens',
    'usage.audio.output_tokens',
    'usage.cache_creation.input_tokens',
    'usage.cache_read.input_tokens',
    'usage.image.input_tokens',
    'usage.input_tokens',
    'usage.output_tokens',
    'usage.reasoning.output_tokens',
    'usage.text.input_tokens',
    'usage.text.output_tokens',
    'usage.video.input_tokens',
    'workflow.name',
  ].map((name) => `gen_ai.${name}`),
);

/** `docs/registry/attributes/a2a.md` at bd8475c93bf6ca13a0977c5a1335cc2661020908. */
const A2A_ATTRIBUTES = new Set([
  'a2a.message.id',
  'a2a.message.reference_task_ids',
  'a2a.method.name',
  'a2a.protocol.version',
  'a2a.task.id',
  'a2a.task.state',
  'a2a.tenant',
]);

/** `gen_ai.operation.name`'s well-known values (gen-ai.md at the commit above). */
const OPERATION_NAMES = new Set([
  'chat',
  'create_agent',
  'create_memory',
  'create_memory_store',
  'delete_memory',
  'delete_memory_store',
  'embeddings',
  'execute_tool',
  'generate_content',
  'invoke_agent',
  'invoke_workflow',
  'plan',
  'retrieval',
  'search_memory',
  'text_completion',
  'update_memory',
  'upsert_memory',
]);

/** `a2a.method.name`'s and `a2a.task.state`'s well-known values (a2a.md at the commit above). */
const A2A_METHODS = new Set([
  'CancelTask',
  'CreateTaskPushNotificationConfig',
  'DeleteTaskPushNotificationConfig',
  'GetExtendedAgentCard',
  'GetTask',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'ListTasks',
  'SendMessage',
  'SendStreamingMessage',
  'SubscribeToTask',
]);
const A2A_TASK_STATES = new Set([
  'TASK_STATE_AUTH_REQUIRED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_UNSPECIFIED',
  'TASK_STATE_WORKING',
]);

/** `model/gen-ai/metrics.yaml` at 004902b8cb70aa5ae6ca4ae07132b7daabcd3e10: each metric's name and unit. */
const GENAI_METRICS = new Map([
  ['gen_ai.client.token.usage', '{token}'],
  ['gen_ai.client.operation.duration', 's'],
  ['gen_ai.client.operation.time_to_first_chunk', 's'],
  ['gen_ai.client.operation.time_per_output_chunk', 's'],
  ['gen_ai.server.request.duration', 's'],
  ['gen_ai.server.time_per_output_token', 's'],
  ['gen_ai.server.time_to_first_token', 's'],
  ['gen_ai.workflow.duration', 's'],
  ['gen_ai.invoke_agent.duration', 's'],
  ['gen_ai.execute_tool.duration', 's'],
]);

/**
 * The span name each operation's convention gives (spans.yaml): `{operation} {subject}`, or the bare operation when the
 * subject is not available (`chat` with no model, `invoke_agent` with no agent name).
 */
const SUBJECT: Record<string, string> = {
  chat: 'gen_ai.request.model',
  invoke_agent: 'gen_ai.agent.name',
  execute_tool: 'gen_ai.tool.name',
  invoke_workflow: 'gen_ai.workflow.name',
};

type Value = string | number | boolean | bigint | Value[] | null | undefined;

/** What in one span departs from the conventions' names; empty when nothing does. */
export function genAiDepartures(span: { name: string; attributes: Record<string, Value> }): string[] {
  const out: string[] = [];
  const { attributes } = span;
  for (const key of Object.keys(attributes)) {
    if (key.startsWith('gen_ai.') && !GENAI_ATTRIBUTES.has(key)) out.push(`${span.name}: ${key} is not in the GenAI registry`);
    if (key.startsWith('a2a.') && !A2A_ATTRIBUTES.has(key)) out.push(`${span.name}: ${key} is not in the A2A registry`);
  }
  const operation = attributes['gen_ai.operation.name'];
  if (operation !== undefined) {
    if (!OPERATION_NAMES.has(String(operation))) out.push(`${span.name}: gen_ai.operation.name ${String(operation)} is not a well-known value`);
    const subjectKey = SUBJECT[String(operation)];
    if (subjectKey !== undefined) {
      const subject = attributes[subjectKey];
      const expected = subject === undefined ? String(operation) : `${String(operation)} ${String(subject)}`;
      if (span.name !== expected) out.push(`${span.name}: the convention names this span ${expected}`);
    }
  }
  const method = attributes['a2a.method.name'];
  if (method !== undefined) {
    if (!A2A_METHODS.has(String(method))) out.push(`${span.name}: a2a.method.name ${String(method)} is not a well-known value`);
    if (span.name !== String(method)) out.push(`${span.name}: an A2A span is named after its method, ${String(method)}`);
  }
  const state = attributes['a2a.task.state'];
  if (state !== undefined && !A2A_TASK_STATES.has(String(state))) out.push(`${span.name}: a2a.task.state ${String(state)} is not a well-known value`);
  return out;
}

/** What in one metric departs from the conventions' metrics: an unknown name, or another unit. */
export function genAiMetricDepartures(metric: { metric: string; unit: string }): string[] {
  const unit = GENAI_METRICS.get(metric.metric);
  if (unit === undefined) return [`metric ${metric.metric} is not in the GenAI conventions`];
  return unit === metric.unit ? [] : [`metric ${metric.metric} has unit ${metric.unit}, the convention's is ${unit}`];
}
