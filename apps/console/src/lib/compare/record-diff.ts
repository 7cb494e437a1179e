/**
 * What differs between two aligned steps of two runs (docs/console.md, "Compare two runs"): texts as line (or word)
 * diffs, bounded in size and edits; scalars by equality; durations apart, and only beyond a threshold, since they
 * always move.
 */
import { entryFacts } from '../records/entry-facts.js';
import type { TaskRecordEntry } from '@murmur/protocol';
import { diffLines, diffWordsWithSpace } from 'diff';
import type { EndingEntry, OpeningEntry, StepEntry } from './record-align.js';

/** Texts longer than this are compared for equality only. */
export const TEXT_DIFF_MAX_CHARS = 200_000;
/** A line diff needing more edits than this is not shown part by part. */
const TEXT_DIFF_MAX_EDITS = 2_000;
/** A duration differs when the two differ by at least this much… @unit ms */
const DURATION_MIN_DELTA_MS = 100;
/** …and by at least this share of the longer. */
const DURATION_MIN_RATIO = 0.25;

interface DiffPart {
  value: string;
  added: boolean;
  removed: boolean;
}

/** Two texts compared: the same, the parts of their diff, or different but too long or too far apart to show. */
export type TextDiff = { kind: 'same' } | { kind: 'parts'; parts: DiffPart[] } | { kind: 'too-long' };

export function textDiff(a: string, b: string): TextDiff {
  if (a === b) return { kind: 'same' };
  if (a.length > TEXT_DIFF_MAX_CHARS || b.length > TEXT_DIFF_MAX_CHARS) return { kind: 'too-long' };
  const oneLine = !a.includes('\n') && !b.includes('\n');
  const options = { maxEditLength: TEXT_DIFF_MAX_EDITS };
  const changes = oneLine ? diffWordsWithSpace(a, b, options) : diffLines(a, b, options);
  if (!changes) return { kind: 'too-long' };
  return { kind: 'parts', parts: changes.map((c) => ({ value: c.value, added: c.added, removed: c.removed })) };
}

/** One compared field of a pair: its name (as the page says it), both values as text, and whether they differ. */
export interface FieldComparison {
  name: string;
  a: string | null;
  b: string | null;
  changed: boolean;
  /** For text fields that differ and both exist: the diff to show. */
  diff: TextDiff | null;
}

/** A duration of B against A: `slower` or `faster` only beyond the threshold. */
export type DurationChange = 'same' | 'slower' | 'faster';

export function durationChange(a: number | null, b: number | null): DurationChange {
  if (a === null || b === null) return 'same';
  const delta = b - a;
  if (Math.abs(delta) < DURATION_MIN_DELTA_MS || Math.abs(delta) < DURATION_MIN_RATIO * Math.max(a, b)) return 'same';
  return delta > 0 ? 'slower' : 'faster';
}

export interface DurationComparison {
  a: number | null;
  b: number | null;
  change: DurationChange;
}

/** An aligned row's verdict: `unchanged`, `changed` (naming the fields), or one side's alone. */
type Verdict = 'unchanged' | 'changed' | 'only-a' | 'only-b';

export interface StepComparison {
  verdict: Verdict;
  fields: FieldComparison[];
  /** Names of the fields that differ (not the duration: `duration.change` marks it). */
  changed: string[];
  duration: DurationComparison | null;
}

/** A tool call's input as the record page shows it: `$ <command>` for a shell call, else its JSON. */
export function toolInputText(input: unknown): string {
  if (typeof input === 'object' && input !== null && !Array.isArray(input)) {
    const command = (input as Record<string, unknown>).command;
    if (Object.keys(input).length === 1 && typeof command === 'string') return `$ ${command}`;
  }
  return JSON.stringify(input, null, 2);
}

const scalar = (value: string | number | null | undefined): string | null => (value === null || value === undefined ? null : String(value));

function textField(name: string, a: string | null, b: string | null): FieldComparison {
  const changed = a !== b;
  return { name, a, b, changed, diff: changed && a !== null && b !== null ? textDiff(a, b) : null };
}

function scalarField(name: string, a: string | null, b: string | null): FieldComparison {
  return { name, a, b, changed: a !== b, diff: null };
}

type Compared = StepEntry | OpeningEntry | EndingEntry | Extract<TaskRecordEntry, { kind: 'answer' }>;

/** The fields of one entry, by name, as the comparison reads them (text fields diffed). */
function fieldsOf(e: Compared): { name: string; value: string | null; text: boolean }[] {
  switch (e.kind) {
    case 'input':
    case 'reply':
    case 'answer':
      return [{ name: 'text', value: e.text, text: true }];
    case 'input-required':
      return [{ name: 'prompt', value: e.prompt, text: true }];
    case 'turn':
      return [
        { name: 'input tokens', value: scalar(e.inputTokens), text: false },
        { name: 'output tokens', value: scalar(e.outputTokens), text: false },
        { name: 'stop reason', value: e.stopReason, text: false },
      ];
    case 'tool-call':
      return [
        { name: 'input', value: e.input === null ? null : toolInputText(e.input), text: true },
        { name: 'output', value: e.output, text: true },
        { name: 'exit code', value: scalar(e.exitCode), text: false },
        { name: 'status', value: e.status, text: false },
      ];
    case 'end':
      return [
        { name: 'state', value: e.state, text: false },
        { name: 'status', value: e.status, text: true },
      ];
    case 'reopen':
      return [{ name: 'hook', value: e.hook, text: false }];
    case 'harness-start':
      return [
        { name: 'model', value: e.model, text: false },
        { name: 'session mode', value: e.sessionMode, text: false },
      ];
    case 'harness-end':
      return [
        { name: 'outcome', value: e.outcome, text: false },
        { name: 'exit code', value: scalar(e.exitCode), text: false },
        { name: 'turns', value: scalar(e.turns), text: false },
        { name: 'failure', value: e.failure, text: true },
      ];
    case 'harness-session-forgotten':
      return [{ name: 'requested by', value: e.requestedBy, text: false }];
    case 'input-timeout':
    case 'inference-retry':
    case 'delegation':
    case 'keep-working':
    case 'done-check':
    case 'compaction':
    case 'trimmed':
    case 'spend-refused':
    case 'tool-denied':
    case 'hook':
      return entryFacts(e);
    default: {
      const unreachable: never = e;
      throw new TypeError(`unknown entry ${JSON.stringify(unreachable)}`);
    }
  }
}

const durationOf = (e: Compared | null) => (e && 'durationMs' in e ? e.durationMs : null);

/**
 * Two facing entries compared field by field (either may be null: that side has none). Entries of different kinds
 * (a run that ended where the other was reopened) differ in every field either has.
 */
export function compareEntries(a: Compared | null, b: Compared | null): StepComparison {
  if (a === null && b === null) return { verdict: 'unchanged', fields: [], changed: [], duration: null };
  if (a === null || b === null) {
    const only = (a ?? b) as Compared;
    const fields = fieldsOf(only).map((f) => ({ name: f.name, a: a ? f.value : null, b: b ? f.value : null, changed: true, diff: null }));
    return { verdict: a ? 'only-a' : 'only-b', fields, changed: [], duration: null };
  }
  const left = new Map(fieldsOf(a).map((f) => [f.name, f]));
  const right = new Map(fieldsOf(b).map((f) => [f.name, f]));
  const fields: FieldComparison[] = [];
  for (const name of new Set([...left.keys(), ...right.keys()])) {
    const fa = left.get(name);
    const fb = right.get(name);
    const text = (fa ?? fb)?.text ?? false;
    const av = fa?.value ?? null;
    const bv = fb?.value ?? null;
    fields.push(text ? textField(name, av, bv) : scalarField(name, av, bv));
  }
  if (a.kind !== b.kind) fields.unshift(scalarField('kind', a.kind, b.kind));
  const da = durationOf(a);
  const db = durationOf(b);
  const duration = da === null && db === null ? null : { a: da, b: db, change: durationChange(da, db) };
  // A duration is marked on its own (slower, faster): timing alone does not make a step `changed`.
  const changed = fields.filter((f) => f.changed).map((f) => f.name);
  return { verdict: changed.length > 0 ? 'changed' : 'unchanged', fields, changed, duration };
}

/** The runs' totals compared: a number each side, a verdict for the total. */
export interface TotalComparison {
  name: string;
  a: number | null;
  b: number | null;
  /** For the duration: slower or faster beyond the threshold; for counts, whether they differ. */
  change: DurationChange | 'changed' | 'same';
}

export interface RunTotals {
  durationMs: number | null;
  turns: number;
  toolCalls: number;
  inputTokens: number | null;
  outputTokens: number | null;
}

/** A run's totals from its steps (tokens: null when no turn reported any). */
export function runTotals(steps: readonly StepEntry[], durationMs: number | null): RunTotals {
  let inputTokens: number | null = null;
  let outputTokens: number | null = null;
  let turns = 0;
  let toolCalls = 0;
  for (const e of steps) {
    if (e.kind === 'tool-call') toolCalls++;
    if (e.kind !== 'turn') continue;
    turns++;
    if (e.inputTokens !== null) inputTokens = (inputTokens ?? 0) + e.inputTokens;
    if (e.outputTokens !== null) outputTokens = (outputTokens ?? 0) + e.outputTokens;
  }
  return { durationMs, turns, toolCalls, inputTokens, outputTokens };
}

export function compareTotals(a: RunTotals, b: RunTotals): TotalComparison[] {
  const count = (name: string, x: number | null, y: number | null): TotalComparison => ({ name, a: x, b: y, change: x === y ? 'same' : 'changed' });
  return [
    { name: 'Duration', a: a.durationMs, b: b.durationMs, change: durationChange(a.durationMs, b.durationMs) },
    count('Turns', a.turns, b.turns),
    count('Tool calls', a.toolCalls, b.toolCalls),
    count('Input tokens', a.inputTokens, b.inputTokens),
    count('Output tokens', a.outputTokens, b.outputTokens),
  ];
}
