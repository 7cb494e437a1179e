import type { TaskRecordEntry, TaskRecordSummary } from '@murmur/protocol';
import { describe, expect, it } from 'vitest';
import { ComparePicks } from '../src/lib/compare/compare-picks.svelte';
import { alignSteps, attemptCount, runView, type StepEntry } from '../src/lib/compare/record-align';
import { compareEntries, durationChange, TEXT_DIFF_MAX_CHARS, textDiff, toolInputText } from '../src/lib/compare/record-diff';
import { href, parseRoute } from '../src/lib/routing/routes';
import { compareRuns, sideOf } from '../src/lib/compare/run-comparison';

// The compare page's pure parts (docs/console.md, "Compare two runs").
const t0 = Date.UTC(2026, 11, 1, 10, 0, 0);
const at = (ms: number) => ({ at: new Date(t0 + ms).toISOString(), offsetMs: ms });
const input = (ms: number, text: string): TaskRecordEntry => ({ kind: 'input', ...at(ms), text, attachments: [] });
const turn = (ms: number, n: number, over: Partial<Extract<TaskRecordEntry, { kind: 'turn' }>> = {}): TaskRecordEntry => ({
  kind: 'turn',
  ...at(ms),
  turn: n,
  durationMs: 10,
  firstTokenMs: null,
  inputTokens: 100,
  outputTokens: 20,
  cachedTokens: null,
  stopReason: 'tool_use',
  ...over,
});
const call = (ms: number, tool: string, output: string, over: Partial<Extract<TaskRecordEntry, { kind: 'tool-call' }>> = {}): TaskRecordEntry => ({
  kind: 'tool-call',
  ...at(ms),
  toolCallId: `call_${ms}`,
  tool,
  input: { command: `run ${tool}` },
  output,
  exitCode: 0,
  status: 'passed',
  durationMs: 30,
  ...over,
});
const answer = (ms: number, text: string): TaskRecordEntry => ({ kind: 'answer', ...at(ms), text });
const end = (ms: number, state: 'TASK_STATE_COMPLETED' | 'TASK_STATE_FAILED' = 'TASK_STATE_COMPLETED'): TaskRecordEntry => ({
  kind: 'end',
  ...at(ms),
  state,
  status: null,
});
const reopen = (ms: number, attempt: number): TaskRecordEntry => ({ kind: 'reopen', ...at(ms), attempt, hook: 'recheck' });
const summary = (taskId: string, durationMs: number | null): TaskRecordSummary => ({
  taskId,
  contextId: 'ctx',
  sessionId: 'ses',
  state: 'TASK_STATE_COMPLETED',
  createdAt: new Date(t0).toISOString(),
  updatedAt: new Date(t0 + (durationMs ?? 0)).toISOString(),
  input: 'go',
  answer: null,
  statusText: null,
  durationMs,
  turns: 0,
  toolCalls: 0,
});
const stepsOf = (entries: TaskRecordEntry[]) => runView(entries)?.steps as StepEntry[];
const describeRow = (row: { a: StepEntry | null; b: StepEntry | null }) =>
  [row.a, row.b].map((e) => (e === null ? '-' : e.kind === 'tool-call' ? e.tool : e.kind === 'turn' ? `turn${e.turn}` : e.kind)).join('|');

describe('alignSteps', () => {
  it('faces turn with turn and tool call with tool call by name and order; a call one side made stands alone', () => {
    const a = stepsOf([
      input(0, 'go'),
      turn(1, 1),
      call(20, 'read', 'x'),
      call(60, 'grep', 'y'),
      turn(100, 2),
      call(120, 'write', 'z'),
      turn(200, 3),
      answer(300, 'ok'),
      end(300),
    ]);
    const b = stepsOf([
      input(0, 'go'),
      turn(1, 1),
      call(20, 'grep', 'y'),
      turn(100, 2),
      call(120, 'read', 'x'),
      call(130, 'write', 'z'),
      turn(200, 3),
      answer(300, 'ok'),
      end(300),
    ]);
    expect(alignSteps(a, b).map(describeRow)).toEqual(['turn1|turn1', 'read|-', 'grep|grep', 'turn2|turn2', '-|read', 'write|write', 'turn3|turn3']);
  });

  it('a segment only one side has stands alone whole; turns pair by order, not by their number', () => {
    const a = stepsOf([turn(1, 1), call(20, 'read', 'x'), turn(100, 2), call(120, 'read', 'x')]);
    const b = stepsOf([turn(1, 5), call(20, 'read', 'x')]);
    expect(alignSteps(a, b).map(describeRow)).toEqual(['turn1|turn5', 'read|read', 'turn2|-', 'read|-']);
    expect(alignSteps(a, b).map((r) => r.segment)).toEqual([1, 1, 2, 2]);
  });

  it('steps before the first turn face each other in segment 0', () => {
    const a = stepsOf([input(0, 'x'), call(5, 'read', 'x'), turn(10, 1)]);
    const b = stepsOf([input(0, 'x'), turn(10, 1)]);
    expect(alignSteps(a, b).map(describeRow)).toEqual(['read|-', 'turn1|turn1']);
  });
});

describe('runView and attempts', () => {
  const entries = [input(0, 'go'), turn(1, 1), call(10, 'read', 'one'), reopen(50, 2), turn(60, 1), call(70, 'read', 'two'), answer(90, 'done'), end(100)];

  it('counts attempts and cuts the record at each reopen', () => {
    expect(attemptCount(entries)).toBe(2);
    const first = runView(entries, 1);
    expect(first?.opening?.kind).toBe('input');
    expect(first?.ending).toMatchObject({ kind: 'reopen', attempt: 2 });
    expect(first?.answer).toBeNull();
    expect(first?.steps.map((s) => s.kind)).toEqual(['turn', 'tool-call']);
    const second = runView(entries, 2);
    expect(second?.opening).toMatchObject({ kind: 'reopen', attempt: 2 });
    expect(second?.ending?.kind).toBe('end');
    expect(second?.answer?.text).toBe('done');
    expect(runView(entries, 3)).toBeNull();
    expect(runView(entries, 0)).toBeNull();
    // The whole record: the reopen is a step of its own.
    expect(runView(entries)?.steps.map((s) => s.kind)).toEqual(['turn', 'tool-call', 'reopen', 'turn', 'tool-call']);
  });

  it('compares two attempts of one task: the changed output is marked, the turn unchanged', () => {
    const record = { task: summary('tsk_1', 100), entries };
    const a = sideOf(record, 1);
    const b = sideOf(record, 2);
    if ('problem' in a || 'problem' in b) throw new Error('both attempts exist');
    const compared = compareRuns(a, b);
    expect(compared.steps.map((s) => s.comparison.verdict)).toEqual(['unchanged', 'changed']);
    expect(compared.steps[1].comparison.changed).toEqual(['output']);
    expect(compared.opening.changed).toContain('kind');
    expect(compared.answer.verdict).toBe('only-b');
    expect(compared.totals.find((t) => t.name === 'Duration')).toMatchObject({ a: 50, b: 50, change: 'same' });
    expect(sideOf(record, 4)).toEqual({ problem: 'Task tsk_1 has no attempt 4: its record holds 2.' });
  });
});

describe('compareEntries', () => {
  it('marks each field that differs: input, output, exit code, status, tokens, stop reason; duration beyond the threshold', () => {
    const same = compareEntries(call(0, 'bash', 'a\nb\n'), call(0, 'bash', 'a\nb\n', { durationMs: 90 }));
    expect(same).toMatchObject({ verdict: 'unchanged', changed: [], duration: { a: 30, b: 90, change: 'same' } });
    const changed = compareEntries(
      call(0, 'bash', 'a\nb\n'),
      call(0, 'bash', 'a\nc\n', { exitCode: 1, status: 'error', input: { command: 'cat f' }, durationMs: 400 }),
    );
    expect(changed.verdict).toBe('changed');
    expect(changed.changed).toEqual(['input', 'output', 'exit code', 'status']);
    expect(changed.duration).toEqual({ a: 30, b: 400, change: 'slower' });
    // Timing alone leaves a step unchanged, its duration marked.
    expect(compareEntries(call(0, 'bash', 'x'), call(0, 'bash', 'x', { durationMs: 900 }))).toMatchObject({
      verdict: 'unchanged',
      duration: { change: 'slower' },
    });
    expect(changed.fields.find((f) => f.name === 'output')?.diff).toEqual({
      kind: 'parts',
      parts: [
        { value: 'a\n', added: false, removed: false },
        { value: 'b\n', added: false, removed: true },
        { value: 'c\n', added: true, removed: false },
      ],
    });
    expect(compareEntries(turn(0, 1), turn(0, 1, { inputTokens: 140, stopReason: 'end_turn' })).changed).toEqual(['input tokens', 'stop reason']);
    expect(compareEntries(end(0), end(0, 'TASK_STATE_FAILED')).changed).toEqual(['state']);
    expect(compareEntries(null, answer(0, 'x'))).toMatchObject({ verdict: 'only-b', fields: [{ name: 'text', a: null, b: 'x' }] });
  });

  it('durations differ only by at least 100 ms and a quarter of the longer', () => {
    expect(durationChange(1000, 1099)).toBe('same');
    expect(durationChange(1000, 1200)).toBe('same');
    expect(durationChange(1000, 1400)).toBe('slower');
    expect(durationChange(50, 140)).toBe('same');
    expect(durationChange(400, 100)).toBe('faster');
    expect(durationChange(null, 100)).toBe('same');
  });
});

describe('textDiff', () => {
  it('diffs lines, a one-line text by words, and gives up on texts too long or too far apart', () => {
    expect(textDiff('same', 'same')).toEqual({ kind: 'same' });
    expect(textDiff('the red kite', 'the blue kite')).toEqual({
      kind: 'parts',
      parts: [
        { value: 'the ', added: false, removed: false },
        { value: 'red', added: false, removed: true },
        { value: 'blue', added: true, removed: false },
        { value: ' kite', added: false, removed: false },
      ],
    });
    expect(textDiff('x'.repeat(TEXT_DIFF_MAX_CHARS + 1), 'y')).toEqual({ kind: 'too-long' });
    const lines = (prefix: string) => Array.from({ length: 3000 }, (_, i) => `${prefix}${i}`).join('\n');
    expect(textDiff(lines('a'), lines('b'))).toEqual({ kind: 'too-long' });
  });

  it('shows a shell call’s input as its command, another’s as JSON', () => {
    expect(toolInputText({ command: 'cat f' })).toBe('$ cat f');
    expect(toolInputText({ path: 'f' })).toBe('{\n  "path": "f"\n}');
  });
});

describe('the compare route and picks', () => {
  it('reads and writes #/compare/<a>/<b>[?a=&b=]', () => {
    expect(parseRoute('#/compare/tsk_1/tsk_2')).toEqual({ name: 'compare', a: 'tsk_1', b: 'tsk_2' });
    expect(parseRoute('#/compare/tsk_1/tsk_1?a=1&b=2')).toEqual({ name: 'compare', a: 'tsk_1', b: 'tsk_1', attemptA: 1, attemptB: 2 });
    expect(parseRoute('#/compare/tsk_1/tsk_2?a=0&b=x')).toEqual({ name: 'compare', a: 'tsk_1', b: 'tsk_2' });
    expect(parseRoute('#/compare/tsk_1')).toMatchObject({ name: 'not-found' });
    expect(parseRoute('#/compare/tsk_1/tsk_2/x')).toMatchObject({ name: 'not-found' });
    expect(href({ name: 'compare', a: 'tsk_1', b: 'tsk_1', attemptA: 1, attemptB: 2 })).toBe('#/compare/tsk_1/tsk_1?a=1&b=2');
    const route = { name: 'compare', a: 'odd id', b: 'tsk_2', attemptB: 3 } as const;
    expect(parseRoute(href(route))).toEqual(route);
  });

  it('keeps two picks at most in sessionStorage, a third dropping the oldest', () => {
    const storage = new Map<string, string>();
    const fake = { getItem: (k: string) => storage.get(k) ?? null, setItem: (k: string, v: string) => void storage.set(k, v) } as Storage;
    const picks = new ComparePicks(fake);
    picks.toggle('a', true);
    picks.toggle('b', true);
    picks.toggle('c', true);
    expect(picks.ids).toEqual(['b', 'c']);
    picks.toggle('b', false);
    expect(picks.ids).toEqual(['c']);
    expect(new ComparePicks(fake).ids).toEqual(['c']);
    storage.set('murmur-console.compare', '{not json');
    expect(new ComparePicks(fake).ids).toEqual([]);
  });
});
