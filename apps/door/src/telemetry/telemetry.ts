import type { OnModuleDestroy } from '@nestjs/common';
import type { FetchLike } from '@murmur/client';
import type { CarriedTraceContext, OutboundCaller, OutboundTracing, PlanStepRef } from '../egress/outbound-tracing.js';
import type { TraceWriter } from '../records/trace-writer.js';
import type { DoorLog } from '../session/door-log.js';
import type { TaskEvents } from '../tasks/task-events.js';
import type { OtlpExport, OtlpExportOptions } from './otlp-export.js';
import { SHUTDOWN_BUDGET_MS, type TelemetrySettings, telemetryEnabled } from './telemetry-config.js';
import type { OutboundA2a, OutboundA2aSource, TraceContext, TraceContextSource } from './trace-context.js';
import { tracedFetch, tracedHttpFetch } from './traced-fetch.js';

export interface TelemetryDeps extends Omit<OtlpExportOptions, 'exportTimeoutMs'> {
  trace: TraceWriter;
  events: TaskEvents;
  log: DoorLog;
  settings: TelemetrySettings;
}

/**
 * The door's OpenTelemetry export (docs/telemetry.md): off, and costing nothing, unless an OTLP endpoint is set; on,
 * it follows the trace records and task events (no hook in the loop's path beyond what it already reports) and hands
 * outbound member calls their traceparent.
 */
export class Telemetry implements TraceContextSource, OutboundA2aSource, OutboundTracing, OnModuleDestroy {
  private constructor(private readonly otlp: OtlpExport | null) {}

  static async start(deps: TelemetryDeps): Promise<Telemetry> {
    if (!telemetryEnabled(deps.settings)) return new Telemetry(null);
    const { startOtlpExport } = await import('./otlp-export.js');
    const otlp = startOtlpExport({ ...deps, exportTimeoutMs: deps.settings.otlpTimeoutMs });
    const { spans } = otlp;
    // A span is bookkeeping: whatever goes wrong in it must never reach the task that wrote the record.
    const guard = (what: string, run: () => void) => {
      try {
        run();
      } catch (error) {
        deps.log.error('telemetry: a span could not be recorded', { what, error: (error as Error).message });
      }
    };
    deps.trace.tap((line) => guard(line.type, () => spans.record(line)));
    deps.events.on('inference', ({ taskId, phase }) => phase === 'start' && guard('inference', () => spans.inferenceStarted(taskId)));
    deps.events.on('tool-call-started', ({ taskId, toolCallId, toolName }) => guard('tool_call', () => spans.toolStarted(taskId, toolCallId, toolName)));
    return new Telemetry(otlp);
  }

  get enabled(): boolean {
    return this.otlp !== null;
  }

  traceContextFor(taskId: string): TraceContext | null {
    return this.otlp?.spans.traceContextFor(taskId) ?? null;
  }

  outboundFor(taskId: string): OutboundA2a | null {
    return this.otlp?.spans.outboundFor(taskId) ?? null;
  }

  a2a(caller: OutboundCaller, fetch: FetchLike, step?: PlanStepRef): FetchLike {
    return this.otlp ? tracedFetch(this.otlp.spans.outboundFor(caller.taskId, caller.toolCallId, step), fetch) : fetch;
  }

  a2aUnder(parent: CarriedTraceContext | null, fetch: FetchLike): FetchLike {
    if (!this.otlp) return fetch;
    const { spans } = this.otlp;
    return tracedFetch(spans.outboundUnder(spans.contextOf(parent)), fetch);
  }

  http(caller: OutboundCaller, fetch: FetchLike, shownUrl: string): FetchLike {
    return this.otlp ? tracedHttpFetch(this.otlp.spans.httpFor(caller.taskId, caller.toolCallId), fetch, shownUrl) : fetch;
  }

  /**
   * Wires what exists only once the door is up: the driver kind serving the session now (`gen_ai.provider.name` of
   * a span that starts before its call's record says), and the `a2a.server` spans of the door at `url`, which the
   * RPC pipeline is handed through `observe`. Off, nothing is wired: the pipeline never holds an observer.
   */
  attach(deps: { driverKindNow: () => string | undefined; url: string; observe: (observer: ReturnType<OtlpExport['serverSpans']>) => void }): void {
    if (!this.otlp) return;
    this.otlp.spans.driverKindNow = deps.driverKindNow;
    deps.observe(this.otlp.serverSpans(deps.url));
  }

  /** Flushes what is queued, for at most SHUTDOWN_BUDGET_MS: a collector that is down never holds the door open. */
  async onModuleDestroy(): Promise<void> {
    if (!this.otlp) return;
    let timer: NodeJS.Timeout | undefined;
    const budget = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, SHUTDOWN_BUDGET_MS);
      timer.unref();
    });
    await Promise.race([this.otlp.shutdown().catch(() => undefined), budget]);
    clearTimeout(timer);
  }
}
