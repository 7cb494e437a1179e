import type { Attributes, Histogram, Meter } from '@opentelemetry/api';

/** The bucket boundaries each metric's convention names (gen-ai-metrics.md, ExplicitBucketBoundaries). @unit s */
const OPERATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
const AGENT_BUCKETS = [0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 6.4, 12.8, 25.6, 51.2, 102.4, 204.8, 409.6];
/** @unit tokens */
const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];

/** A histogram as its convention defines it (gen-ai-metrics.md): name, unit, description, bucket boundaries. */
type HistogramSpec = readonly [name: string, unit: string, description: string, buckets: number[]];

const HISTOGRAMS = {
  operation: ['gen_ai.client.operation.duration', 's', 'GenAI operation duration.', OPERATION_BUCKETS],
  tokens: ['gen_ai.client.token.usage', '{token}', 'Number of input and output tokens used.', TOKEN_BUCKETS],
  agent: ['gen_ai.invoke_agent.duration', 's', 'The end-to-end duration of a single agent invocation.', AGENT_BUCKETS],
  tool: ['gen_ai.execute_tool.duration', 's', 'The duration of a single tool execution.', OPERATION_BUCKETS],
  firstChunk: [
    'gen_ai.client.operation.time_to_first_chunk',
    's',
    'Time to receive the first chunk, measured from when the client issues the generation request to when the first chunk is received in the response stream.',
    OPERATION_BUCKETS,
  ],
  workflow: ['gen_ai.workflow.duration', 's', 'GenAI workflow duration.', AGENT_BUCKETS],
} as const satisfies Record<string, HistogramSpec>;

const histogram = (meter: Meter, [name, unit, description, buckets]: HistogramSpec): Histogram =>
  meter.createHistogram(name, { unit, description, advice: { explicitBucketBoundaries: buckets } });

/**
 * The GenAI metrics the door records (docs/telemetry.md, "Metrics"): each duration is its span's, in seconds;
 * token usage is recorded once per inference call that reported it, input and output apart; the time to the first
 * chunk once per call that streamed one.
 */
export class GenAiMetrics {
  private readonly operation: Histogram;
  private readonly firstChunk: Histogram;
  private readonly tokens: Histogram;
  private readonly agent: Histogram;
  private readonly tool: Histogram;
  private readonly workflow: Histogram;

  constructor(meter: Meter) {
    this.operation = histogram(meter, HISTOGRAMS.operation);
    this.tokens = histogram(meter, HISTOGRAMS.tokens);
    this.agent = histogram(meter, HISTOGRAMS.agent);
    this.tool = histogram(meter, HISTOGRAMS.tool);
    this.firstChunk = histogram(meter, HISTOGRAMS.firstChunk);
    this.workflow = histogram(meter, HISTOGRAMS.workflow);
  }

  /**
   * @param seconds the chat span's duration
   * @param firstChunkSeconds from the call's start to its first streamed chunk; null when nothing streamed
   */
  inference(seconds: number, attributes: Attributes, usage: { input?: number; output?: number }, firstChunkSeconds: number | null): void {
    this.operation.record(seconds, attributes);
    // The token and first-chunk metrics take the operation's attributes without error.type (metrics.yaml).
    const { 'error.type': _error, ...plain } = attributes;
    if (usage.input !== undefined) this.tokens.record(usage.input, { ...plain, 'gen_ai.token.type': 'input' });
    if (usage.output !== undefined) this.tokens.record(usage.output, { ...plain, 'gen_ai.token.type': 'output' });
    if (firstChunkSeconds !== null) this.firstChunk.record(firstChunkSeconds, plain);
  }

  /** @param seconds the invoke_workflow span's duration */
  invokeWorkflow(seconds: number, attributes: Attributes): void {
    this.workflow.record(seconds, attributes);
  }

  /** @param seconds the invoke_agent span's duration */
  invokeAgent(seconds: number, attributes: Attributes): void {
    this.agent.record(seconds, attributes);
  }

  /** @param seconds the execute_tool span's duration */
  executeTool(seconds: number, attributes: Attributes): void {
    this.tool.record(seconds, attributes);
  }
}
