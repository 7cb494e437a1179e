import type { DoorSettings } from '../config/settings.js';

/** The settings telemetry reads (config/settings.ts): whether it is on, and how long one export may take. */
export type TelemetrySettings = Pick<DoorSettings, 'otelSdkDisabled' | 'otlpEndpoint' | 'otlpTracesEndpoint' | 'otlpTimeoutMs'>;

/**
 * Telemetry is on when the standard OTLP endpoint variable is set (OpenTelemetry's "OTLP Exporter Configuration"):
 * `OTEL_EXPORTER_OTLP_ENDPOINT`, or its traces-only form; `OTEL_SDK_DISABLED=true` turns it off again. The other
 * OTEL_* variables (headers, compression, resource attributes, batch sizes) are read by the SDK itself; the door's
 * settings only check at start that the documented ones are well formed.
 */
export function telemetryEnabled(settings: TelemetrySettings): boolean {
  if (settings.otelSdkDisabled) return false;
  return settings.otlpEndpoint !== null || settings.otlpTracesEndpoint !== null;
}

/**
 * How long closing the door waits for the last spans to reach the collector before it gives up on them.
 * @default 2000
 * @unit milliseconds
 */
export const SHUTDOWN_BUDGET_MS = 2_000;

/**
 * Batch processor bounds unless the OTEL_BSP_* variables say otherwise: spans wait at most a second, the queue holds
 * 2,048 (the rest are dropped, never awaited), one export may take 5 s.
 */
export const BATCH_DEFAULTS = { scheduledDelayMillis: 1_000, maxQueueSize: 2_048, maxExportBatchSize: 512, exportTimeoutMillis: 5_000 } as const;

/**
 * How often metrics are exported (they are also exported once more when the door closes).
 * @default 10000
 * @unit milliseconds
 */
export const METRIC_EXPORT_INTERVAL_MS = 10_000;
