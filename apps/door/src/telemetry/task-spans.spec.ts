/**
 * Which tasks run a formation as a workflow (docs/telemetry.md, "Spans": `invoke_workflow <formation name>`): in a
 * member that may call others, every task another member did not start — a caller's, and the session's own (the
 * launch's task the entry member is given) — and none outside a formation. Spans go to an in-memory exporter.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { GenAiMetrics } from './genai-metrics.js';
import { TaskSpans } from './task-spans.js';

const TS = '2026-12-07T06:00:00.000Z';
const AGENT = { name: 'planner', id: 'ses_1', version: '0.1.0', description: 'Murmur capsule planner 0.1.0' };

/** One task from start to end through TaskSpans, and the spans it exported (name → parent's name). */
function spansOf(formation: string | null, origin: string): Map<string, string | undefined> {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const spans = new TaskSpans(provider.getTracer('spec'), new GenAiMetrics(new MeterProvider().getMeter('spec')), AGENT, formation);
  spans.record({
    ts: TS,
    type: 'task_start',
    task_id: 'tsk_1',
    context_id: 'ctx_1',
    message_id: 'msg_1',
    origin,
    trust: 'trusted',
    text_chars: 2,
    text: 'go',
    references: [],
    attachments: [],
  });
  spans.record({ ts: TS, type: 'task_end', task_id: 'tsk_1', state: 'TASK_STATE_COMPLETED', status: null, running_commands: [] });
  const finished = exporter.getFinishedSpans();
  const byId = new Map(finished.map((s) => [s.spanContext().spanId, s.name]));
  return new Map(finished.map((s) => [s.name, s.parentSpanContext ? byId.get(s.parentSpanContext.spanId) : undefined]));
}

test('a caller’s task and the session’s own run the formation as a workflow, holding the task’s span', () => {
  for (const origin of ['public', 'session', 'peer']) {
    assert.deepEqual(
      [...spansOf('crew', origin)],
      [
        ['invoke_agent planner', 'invoke_workflow crew'],
        ['invoke_workflow crew', undefined],
      ],
      origin,
    );
  }
});

test('a task another member started is a step of the workflow already running, not a workflow of its own', () => {
  assert.deepEqual([...spansOf('crew', 'member:lead')], [['invoke_agent planner', undefined]]);
});

test('outside a formation (or as a member that calls no one) no task opens a workflow', () => {
  assert.deepEqual([...spansOf(null, 'public')], [['invoke_agent planner', undefined]]);
});
