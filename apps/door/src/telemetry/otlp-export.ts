import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { capsuleDescription } from '@murmur/protocol';
import { A2aServerSpans } from './a2a-server-spans.js';
import { GenAiMetrics } from './genai-metrics.js';
import { TaskSpans } from './task-spans.js';
import { BATCH_DEFAULTS, METRIC_EXPORT_INTERVAL_MS } from './telemetry-config.js';

/** What the SDK side hands the door: the span builders and a flush-and-stop. */
export interface OtlpExport {
  spans: TaskSpans;
  /** The `a2a.server` spans of the door listening at `url`. */
  serverSpans(url: string): A2aServerSpans;
  shutdown(): Promise<void>;
}

export interface OtlpExportOptions {
  /** The capsule's name: the agent's name and, unless OTEL_SERVICE_NAME says otherwise, the service's. */
  agentName: string;
  sessionId: string;
  serviceVersion: string;
  /** The formation this capsule coordinates as a member that may call others; null outside one, or for a leaf member. */
  formation: string | null;
  /** How long one export may take: OTEL_EXPORTER_OTLP_TIMEOUT, else 5 s (config/settings.ts). @unit ms */
  exportTimeoutMs: number;
}

/**
 * The OpenTelemetry SDK with the OTLP/HTTP protobuf exporter, loaded only when telemetry is on (telemetry.ts imports
 * this file dynamically), so an idle door without a collector never holds the SDK. The exporter reads the standard
 * OTEL_EXPORTER_OTLP_* variables (endpoint, headers, compression) itself, after the door's settings checked them; the
 * timeout is the settings' own (the door's default is shorter than the SDK's 10 s); the provider is never registered
 * globally, so nothing else in the process starts exporting through it.
 */
export function startOtlpExport(options: OtlpExportOptions): OtlpExport {
  const resource = resourceFromAttributes({
    'service.name': options.agentName,
    'service.namespace': 'murmur',
    'service.version': options.serviceVersion,
    'murmur.session.id': options.sessionId,
  }).merge(detectResources({ detectors: [envDetector] }));
  const exporter = new OTLPTraceExporter({ timeoutMillis: options.exportTimeoutMs });
  // The batch processor keeps the task's path free of I/O: spans wait in a bounded queue (the overflow is dropped)
  // and go out in the background; an export that fails is dropped, never retried by the task.
  const processor = new BatchSpanProcessor({ exporter, ...BATCH_DEFAULTS });
  const provider = new TracerProvider({ resource, spanProcessors: [processor] });
  const tracer = provider.getTracer('@murmur/door', options.serviceVersion);
  // Metrics go to <endpoint>/v1/metrics (or OTEL_EXPORTER_OTLP_METRICS_ENDPOINT) every 10 s, cumulative, and once
  // more on shutdown; like spans, an export that fails is dropped. The reader refuses (throws) an export timeout
  // longer than its interval, so a metrics export waits at most the interval whatever OTEL_EXPORTER_OTLP_TIMEOUT says.
  const metricsTimeoutMs = Math.min(options.exportTimeoutMs, METRIC_EXPORT_INTERVAL_MS);
  const metricReader = new PeriodicExportingMetricReader({
    exporter: new OTLPMetricExporter({ timeoutMillis: metricsTimeoutMs }),
    exportIntervalMillis: METRIC_EXPORT_INTERVAL_MS,
    exportTimeoutMillis: metricsTimeoutMs,
  });
  const meters = new MeterProvider({ resource, readers: [metricReader] });
  const metrics = new GenAiMetrics(meters.getMeter('@murmur/door', options.serviceVersion));
  // The agent as the door's own card describes it (gen_ai.agent.* on invoke_agent and a2a.server spans).
  const agent = { name: options.agentName, version: options.serviceVersion, description: capsuleDescription(options.agentName, options.serviceVersion) };
  return {
    spans: new TaskSpans(tracer, metrics, { ...agent, id: options.sessionId }, options.formation),
    serverSpans: (url) => new A2aServerSpans(tracer, hostAndPort(url), agent),
    shutdown: async () => {
      await Promise.all([provider.shutdown(), meters.shutdown()]);
    },
  };
}

function hostAndPort(url: string): { address: string; port: number } {
  const parsed = new URL(url);
  return { address: parsed.hostname.replace(/^\[|\]$/g, ''), port: Number(parsed.port) };
}
