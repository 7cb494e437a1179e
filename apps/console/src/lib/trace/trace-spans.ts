/**
 * A task's record as a trace (docs/console.md, "The task page"): nested spans on the task's time axis, built from the
 * record's entries and its members' records. The task holds its attempts (when a hook reopened it), an attempt its
 * turns, a turn its model call and what followed it until the next turn — tool calls (a call-member call holding the
 * wait for the member's answer and the member's task, nested the same way; a plan holding its steps), delegations,
 * input waits, governors (keep_working, done checks, compactions, trims, spend refusals, policy denials), hooks.
 * Pure: the page draws what this computes.
 */
import {
  RECORD_MEMBER_DEPTH,
  type TaskRecordEntry,
  type TaskRecordMember,
  type TaskRecordMemberCall,
  type TaskRecordPlanStep,
  type TaskRecordSummary,
} from '@murmur/protocol';
import { doorKeyOfUrl } from '../door/door-address.js';
import { entryLabel } from '../records/entry-labels.js';

/** What a span is: its bar's colour, pattern and the word before its name. */
export type SpanKind =
  | 'task'
  | 'attempt'
  | 'turn'
  | 'model'
  | 'tool'
  | 'member-wait'
  | 'member-task'
  | 'plan-step'
  | 'delegation'
  | 'input-wait'
  | 'governor'
  | 'refusal'
  | 'hook'
  | 'mark';

/** Where a span came from, for its detail panel. */
type SpanSource =
  | { kind: 'task'; task: TaskRecordSummary; door: string | null }
  | { kind: 'group' }
  | { kind: 'entry'; entry: TaskRecordEntry /** Its index in the task's own record (links name it); null for a member's entry. */; index: number | null }
  | {
      kind: 'input-wait';
      asked: Extract<TaskRecordEntry, { kind: 'input-required' }>;
      answered: Extract<TaskRecordEntry, { kind: 'reply' | 'input-timeout' | 'end' }> | null;
      index: number | null;
    }
  | { kind: 'member-wait'; call: TaskRecordMemberCall; door: string | null }
  | { kind: 'member-task'; call: TaskRecordMemberCall; task: TaskRecordSummary | null; door: string | null }
  | { kind: 'plan-step'; step: TaskRecordPlanStep; of: number; planIndex: number | null };

export interface TraceSpan {
  /** Its index in the trace's spans (depth-first order). */
  id: number;
  /** The enclosing span's id; -1 for the task. */
  parent: number;
  depth: number;
  kind: SpanKind;
  label: string;
  /** On the task's axis (from its creation). @unit ms */
  startMs: number;
  /** 0 for an instant (an input, an answer, a nudge); a span still running reaches the axis' end. @unit ms */
  durationMs: number;
  /** Still under way when the record was read. */
  running: boolean;
  /** Failed, refused, denied or cancelled: drawn striped as well as coloured. */
  stopped: boolean;
  children: number[];
  /** On the path of work the task's end waited on (criticalPath). */
  critical: boolean;
  source: SpanSource;
}

export interface Trace {
  spans: TraceSpan[];
  /** The axis: the task's wall time, or up to the latest span while it runs (at least 1). @unit ms */
  spanMs: number;
}

type Timed = { startMs: number; durationMs: number };
const endOf = (s: Timed) => s.startMs + s.durationMs;

class Builder {
  readonly spans: TraceSpan[] = [];
  readonly #origin: number;
  readonly #members: ReadonlyMap<string, TaskRecordMember>;
  readonly #nowMs: number;
  readonly #shown = new Set<string>();

  constructor(origin: number, members: ReadonlyMap<string, TaskRecordMember>, nowMs: number) {
    this.#origin = origin;
    this.#members = members;
    this.#nowMs = nowMs;
  }

  /** The offset on the task's axis of a time. @unit ms */
  offset(at: string): number {
    return Date.parse(at) - this.#origin;
  }

  add(
    parent: number,
    kind: SpanKind,
    label: string,
    startMs: number,
    durationMs: number | null,
    source: SpanSource,
    flags: { running?: boolean; stopped?: boolean } = {},
  ): number {
    const id = this.spans.length;
    const depth = parent < 0 ? 0 : (this.spans[parent]?.depth ?? 0) + 1;
    const running = flags.running ?? false;
    const duration = durationMs ?? (running ? Math.max(0, this.#nowMs - this.#origin - startMs) : 0);
    this.spans.push({
      id,
      parent,
      depth,
      kind,
      label,
      startMs,
      durationMs: Math.max(0, duration),
      running,
      stopped: flags.stopped ?? false,
      children: [],
      critical: false,
      source,
    });
    if (parent >= 0) this.spans[parent]?.children.push(id);
    return id;
  }

  /** A group's extent: from its first descendant's start to its last one's end. */
  fit(id: number): void {
    const span = this.spans[id];
    if (!span || span.children.length === 0) return;
    let start = Number.POSITIVE_INFINITY;
    let end = Number.NEGATIVE_INFINITY;
    for (const child of span.children) {
      const c = this.spans[child];
      if (!c) continue;
      start = Math.min(start, c.startMs);
      end = Math.max(end, endOf(c));
      if (c.running) span.running = true;
    }
    span.startMs = start;
    span.durationMs = Math.max(0, end - start);
  }

  /**
   * A run of entries (a task's, an attempt's, a member's) under `parent`: turns as groups, the rest where it fell.
   * `base`: where the entries' task was created on this trace's axis (0 for the task's own; their offsetMs count from
   * it, so no time is parsed per entry).
   */
  entries(parent: number, entries: readonly TaskRecordEntry[], own: boolean, firstIndex: number, memberDepth: number, base = 0): void {
    let turn = -1;
    let waiting: { asked: Extract<TaskRecordEntry, { kind: 'input-required' }>; index: number | null; under: number } | null = null;
    const closeWait = (answered: Extract<TaskRecordEntry, { kind: 'reply' | 'input-timeout' | 'end' }> | null) => {
      if (!waiting) return;
      const { asked, index, under } = waiting;
      const start = base + asked.offsetMs;
      const duration = answered ? base + answered.offsetMs - start : null;
      this.add(
        under,
        'input-wait',
        answered?.kind === 'input-timeout' ? 'Waited for input: no reply came' : 'Waiting for input',
        start,
        duration,
        { kind: 'input-wait', asked, answered, index },
        { running: answered === null },
      );
      waiting = null;
    };
    entries.forEach((entry, i) => {
      const index = own ? firstIndex + i : null;
      const under = turn >= 0 ? turn : parent;
      const start = base + entry.offsetMs;
      const source: SpanSource = { kind: 'entry', entry, index };
      switch (entry.kind) {
        case 'turn': {
          if (turn >= 0) this.fit(turn);
          turn = this.add(parent, 'turn', `Turn ${entry.turn}`, start, entry.durationMs, { kind: 'group' });
          const facts = entry.stopReason ? ` · ${entry.stopReason}` : '';
          this.add(turn, 'model', `Model call${facts}`, start, entry.durationMs, source, { stopped: entry.stopReason === 'failed' });
          break;
        }
        case 'tool-call':
          this.toolCall(under, entry, index, memberDepth, base);
          break;
        case 'input-required':
          closeWait(null);
          waiting = { asked: entry, index, under };
          break;
        case 'reply':
        case 'input-timeout':
          if (waiting) closeWait(entry);
          else this.add(under, 'mark', entryLabel(entry), start, 0, source);
          break;
        case 'end':
          if (turn >= 0) this.fit(turn);
          turn = -1;
          closeWait(entry);
          this.add(parent, 'mark', entryLabel(entry), start, 0, source, {
            stopped: entry.state !== 'TASK_STATE_COMPLETED' && entry.state !== 'TASK_STATE_INPUT_REQUIRED',
          });
          break;
        case 'delegation':
          this.add(under, 'delegation', entryLabel(entry), start, entry.durationMs, source, {
            running: entry.status === 'running',
            stopped: entry.status !== 'running' && entry.status !== 'completed',
          });
          break;
        case 'done-check':
          this.add(under, 'governor', entryLabel(entry), start, entry.durationMs, source, { stopped: entry.outcome !== 'passed' });
          break;
        case 'compaction':
          this.add(under, 'governor', entryLabel(entry), start, entry.durationMs, source, { stopped: entry.failed !== null });
          break;
        case 'keep-working':
        case 'trimmed':
        case 'inference-retry':
          this.add(under, 'governor', entryLabel(entry), start, 0, source);
          break;
        case 'spend-refused':
        case 'tool-denied':
          this.add(under, 'refusal', entryLabel(entry), start, 0, source, { stopped: true });
          break;
        case 'hook':
          this.add(under, 'hook', entryLabel(entry), start, 0, source, { stopped: entry.outcome === 'failed' });
          break;
        case 'input':
        case 'answer':
        case 'reopen':
        case 'harness-start':
        case 'harness-session-forgotten':
          this.add(under, 'mark', entryLabel(entry), start, 0, source);
          break;
        case 'harness-end':
          // A harness run's own marks (docs/harness.md): its turns and tool calls are the record's turns and tool calls.
          this.add(under, 'mark', entryLabel(entry), start, 0, source, { stopped: entry.outcome !== 'answered' });
          break;
        default: {
          const unreachable: never = entry;
          throw new TypeError(`unknown record entry ${JSON.stringify(unreachable)}`);
        }
      }
    });
    if (turn >= 0) this.fit(turn);
    closeWait(null);
  }

  toolCall(parent: number, entry: Extract<TaskRecordEntry, { kind: 'tool-call' }>, index: number | null, memberDepth: number, base: number): void {
    const start = base + entry.offsetMs;
    const id = this.add(parent, 'tool', entryLabel(entry), start, entry.durationMs, { kind: 'entry', entry, index }, { stopped: entry.status === 'error' });
    const steps = entry.planSteps ?? [];
    for (const step of steps) {
      const what = step.tool ?? `capsule ${step.capsule ?? ''}`.trim();
      const stopped = step.status === 'failed' || step.status === 'refused' || step.status === 'denied' || step.status === 'canceled';
      this.add(
        id,
        'plan-step',
        `Step ${step.index} of ${steps.length} "${step.id}" · ${what}`,
        base + step.offsetMs,
        step.durationMs,
        { kind: 'plan-step', step, of: steps.length, planIndex: index },
        { stopped },
      );
    }
    const call = entry.memberCall;
    if (!call || memberDepth > RECORD_MEMBER_DEPTH) return;
    const door = call.memberUrl ? doorKeyOfUrl(call.memberUrl) : null;
    const inFlight = call.status === 'running' || call.status === 'offering';
    const ended = !inFlight && call.status !== 'completed';
    const wait = this.add(
      id,
      'member-wait',
      `Waiting for ${call.member}'s answer`,
      this.offset(call.startedAt),
      call.elapsedMs,
      { kind: 'member-wait', call, door },
      { running: inFlight, stopped: ended },
    );
    const record = call.memberTaskId && !this.#shown.has(call.memberTaskId) ? this.#members.get(call.memberTaskId) : undefined;
    if (!record) return;
    this.#shown.add(record.task.taskId);
    const created = this.offset(record.task.createdAt);
    const task = this.add(
      wait,
      'member-task',
      `${call.member}'s task`,
      created,
      record.task.durationMs,
      { kind: 'member-task', call, task: record.task, door },
      { running: record.task.durationMs === null },
    );
    this.entries(task, record.entries, false, 0, memberDepth + 1, created);
  }
}

/** Splits a record at its reopens: each attempt's entries (the reopen that started it first) and its first index. */
function attemptsOf(entries: readonly TaskRecordEntry[]): { entries: TaskRecordEntry[]; first: number }[] {
  const out: { entries: TaskRecordEntry[]; first: number }[] = [{ entries: [], first: 0 }];
  entries.forEach((entry, i) => {
    if (entry.kind === 'reopen') out.push({ entries: [], first: i });
    out[out.length - 1]?.entries.push(entry);
  });
  return out;
}

/**
 * The trace of a task: its spans in depth-first order (the task first), each with its children, the critical path
 * marked. `nowMs` ends what still runs (a running task's page passes its clock). `door`: the task's door, for links.
 */
export function buildTrace(
  task: TaskRecordSummary,
  entries: readonly TaskRecordEntry[],
  members: ReadonlyMap<string, TaskRecordMember>,
  options: { nowMs: number; door?: string | null },
): Trace {
  const origin = Date.parse(task.createdAt);
  const b = new Builder(origin, members, options.nowMs);
  const root = b.add(
    -1,
    'task',
    `Task ${task.taskId}`,
    0,
    task.durationMs,
    { kind: 'task', task, door: options.door ?? null },
    { running: task.durationMs === null },
  );
  const attempts = attemptsOf(entries);
  if (attempts.length === 1) b.entries(root, entries, true, 0, 1);
  else {
    attempts.forEach((attempt, n) => {
      const id = b.add(root, 'attempt', `Attempt ${n + 1}`, 0, 0, { kind: 'group' });
      b.entries(id, attempt.entries, true, attempt.first, 1);
      b.fit(id);
    });
  }
  const spans = depthFirst(b.spans);
  const rootSpan = spans[0];
  const reach = spans.reduce((max, s) => Math.max(max, endOf(s)), 0);
  const spanMs = Math.max(task.durationMs ?? 0, reach, 1);
  if (rootSpan && task.durationMs === null) rootSpan.durationMs = spanMs;
  markCriticalPath(spans);
  return { spans, spanMs };
}

/** Renumbers spans depth-first (the order rows are listed in), children in time order. */
function depthFirst(built: TraceSpan[]): TraceSpan[] {
  const out: TraceSpan[] = [];
  const newId = new Int32Array(built.length).fill(-1);
  const stack: number[] = built.length > 0 ? [0] : [];
  while (stack.length > 0) {
    const id = stack.pop() as number;
    const span = built[id] as TraceSpan;
    newId[id] = out.length;
    out.push(span);
    const children = [...span.children].sort((a, b) => (built[a] as TraceSpan).startMs - (built[b] as TraceSpan).startMs || a - b);
    span.children = children;
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i] as number);
  }
  for (const span of out) {
    span.id = newId[span.id] as number;
    span.parent = span.parent < 0 ? -1 : (newId[span.parent] as number);
    span.children = span.children.map((c) => newId[c] as number);
  }
  return out;
}

/** How far a span's work reaches: its own end or its furthest descendant's (a member's answer outlasts its tool call). */
function reaches(spans: readonly TraceSpan[]): Float64Array {
  const reach = new Float64Array(spans.length);
  for (let i = spans.length - 1; i >= 0; i--) {
    const span = spans[i] as TraceSpan;
    let r = endOf(span);
    for (const c of span.children) r = Math.max(r, reach[c] as number);
    reach[i] = r;
  }
  return reach;
}

/**
 * Marks the critical path: from the task, walking back from its end, the child whose work reached latest, then the
 * one reaching latest before that child started, and so on, into each marked child the same way (Jaeger's rule).
 * Instants (zero-length spans) take no time and are never on it.
 */
function markCriticalPath(spans: TraceSpan[]): void {
  const reach = reaches(spans);
  const visit = (id: number, until: number) => {
    const span = spans[id] as TraceSpan;
    span.critical = true;
    const timed = span.children.filter((c) => (reach[c] as number) > (spans[c] as TraceSpan).startMs);
    timed.sort((a, b) => (reach[b] as number) - (reach[a] as number));
    let cursor = until;
    for (const c of timed) {
      const child = spans[c] as TraceSpan;
      if (child.startMs >= cursor) continue;
      visit(c, Math.min(cursor, reach[c] as number));
      cursor = child.startMs;
    }
  };
  if (spans.length > 0) visit(0, reach[0] as number);
}
