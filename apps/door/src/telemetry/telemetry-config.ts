/**
 * Telemetry is on when the standard OTLP endpoint variable is set (OpenTelemetry's "OTLP Exporter Configuration"):
 * `OTEL_EXPORTER_OTLP_ENDPOINT`, or its traces-only form; `OTEL_SDK_DISABLED=true` turns it off again. Every other
 * OTEL_* variable (headers, timeout, compression, batch sizes) is read by the SDK itself.
 */
export function telemetryEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
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
