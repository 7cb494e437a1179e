/** The words a span's kind reads as (beside its colour, so a bar reads without colour) and a row's "At" text. */
import type { SpanKind, TraceSpan } from '../../lib/trace/trace-spans';
import { formatDuration } from '../../lib/time/time';

export const KIND_WORDS: Record<SpanKind, string> = {
  task: 'task',
  attempt: 'attempt',
  turn: 'turn',
  model: 'model',
  tool: 'tool',
  'member-wait': 'wait',
  'member-task': 'member',
  'plan-step': 'step',
  delegation: 'delegation',
  'input-wait': 'input',
  governor: 'governor',
  refusal: 'refused',
  hook: 'hook',
  mark: 'event',
};

/** `+1.2 s`: where a span starts on the task's axis. */
export const atText = (span: TraceSpan) => `+${formatDuration(Math.max(0, span.startMs))}`;

/** A span's length in words: `instant` for zero-length spans, `so far` for running ones. */
export const durationText = (span: TraceSpan) =>
  span.durationMs === 0 && !span.running ? 'instant' : `${formatDuration(span.durationMs)}${span.running ? ' so far' : ''}`;
