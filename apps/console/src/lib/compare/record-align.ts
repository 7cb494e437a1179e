/**
 * How two task records face each other on the compare page (docs/console.md, "Compare two runs"): each side's ends
 * (its opening, answer and ending) face the other's, and its steps are cut into segments at each turn; segment k
 * faces segment k, the turns face each other and the entries after them pair by the longest common subsequence of
 * their keys (a tool call's tool name, any other entry's kind).
 */
import type { TaskRecordEntry } from '@murmur/protocol';
import { diffArrays } from 'diff';

type EntryOf<K extends TaskRecordEntry['kind']> = Extract<TaskRecordEntry, { kind: K }>;
type ReopenEntry = EntryOf<'reopen'>;
/** What started a run: the operator's input, or for attempt 2 and later the reopen that began it. */
export type OpeningEntry = EntryOf<'input'> | ReopenEntry;
/** How a run ended: its `end` entry, or for an attempt that was reopened the reopen that followed it. */
export type EndingEntry = EntryOf<'end'> | ReopenEntry;
/** The entries aligned step by step: everything but the run's opening, answer and ending. */
export type StepEntry = Exclude<TaskRecordEntry, EntryOf<'input' | 'answer' | 'end'>>;

/** One side of a comparison: a whole record, or one attempt of it. */
export interface RunView {
  opening: OpeningEntry | null;
  steps: StepEntry[];
  answer: EntryOf<'answer'> | null;
  ending: EndingEntry | null;
}

/** How many attempts a record holds: 1, and one more per reopen. */
export function attemptCount(entries: readonly TaskRecordEntry[]): number {
  return 1 + entries.filter((e) => e.kind === 'reopen').length;
}

/**
 * A record (attempt null) or one of its attempts (from 1) as a run; null when the record has no such attempt. In a
 * whole record the reopens are steps; in an attempt, the reopen before it is its opening and the one after its ending.
 */
export function runView(entries: readonly TaskRecordEntry[], attempt: number | null = null): RunView | null {
  let slice: readonly TaskRecordEntry[] = entries;
  let opening: OpeningEntry | null = null;
  let ending: EndingEntry | null = null;
  if (attempt !== null) {
    const reopens = entries.flatMap((e, i) => (e.kind === 'reopen' ? [i] : []));
    if (!Number.isInteger(attempt) || attempt < 1 || attempt > reopens.length + 1) return null;
    const from = attempt === 1 ? 0 : reopens[attempt - 2] + 1;
    const to = attempt <= reopens.length ? reopens[attempt - 1] : entries.length;
    slice = entries.slice(from, to);
    if (attempt > 1) opening = entries[from - 1] as ReopenEntry;
    if (attempt <= reopens.length) ending = entries[to] as ReopenEntry;
  }
  const steps: StepEntry[] = [];
  let answer: EntryOf<'answer'> | null = null;
  for (const e of slice) {
    if (e.kind === 'input') opening ??= e;
    else if (e.kind === 'answer') answer = e;
    else if (e.kind === 'end') ending = e;
    else steps.push(e);
  }
  return { opening, steps, answer, ending };
}

/** A row of the comparison: both sides' entries facing each other, or one side's alone (the other null). */
export interface AlignedStep {
  a: StepEntry | null;
  b: StepEntry | null;
  /** The turn segment it belongs to: 0 before the first turn, k from the k-th turn. */
  segment: number;
}

/** What pairs a step with the other side's: its tool's name for a tool call, its kind otherwise. */
const stepKey = (e: StepEntry) => (e.kind === 'tool-call' ? `tool-call:${e.tool}` : e.kind);

/** The steps cut at each turn: segment 0 before the first turn (may be empty), then one per turn. */
function segments(steps: readonly StepEntry[]): StepEntry[][] {
  const out: StepEntry[][] = [[]];
  for (const e of steps) {
    if (e.kind === 'turn') out.push([e]);
    else out[out.length - 1].push(e);
  }
  return out;
}

/** The two runs' steps, aligned (the rule above), in order. */
export function alignSteps(a: readonly StepEntry[], b: readonly StepEntry[]): AlignedStep[] {
  const left = segments(a);
  const right = segments(b);
  const rows: AlignedStep[] = [];
  for (let segment = 0; segment < Math.max(left.length, right.length); segment++) {
    const sa = left[segment] ?? [];
    const sb = right[segment] ?? [];
    let ia = 0;
    let ib = 0;
    // A segment from 1 on starts with its turn on whichever side has it: turns face each other by order.
    if (segment > 0 && sa.length > 0 && sb.length > 0) {
      rows.push({ a: sa[0], b: sb[0], segment });
      ia = ib = 1;
    }
    // jsdiff's Myers diff over the keys: the common ones face each other, the rest stand alone, each side's in order.
    const changes = diffArrays(sa.slice(ia).map(stepKey), sb.slice(ib).map(stepKey));
    for (const change of changes) {
      for (let n = 0; n < change.count; n++) {
        if (change.removed) rows.push({ a: sa[ia++], b: null, segment });
        else if (change.added) rows.push({ a: null, b: sb[ib++], segment });
        else rows.push({ a: sa[ia++], b: sb[ib++], segment });
      }
    }
  }
  return rows;
}
