/**
 * One task whose record is a trace of about N spans, for the console's trace page at scale (e2e/tests/perf-views.spec.ts,
 * `npm run bench`; docs/console.md, "The task page"): into a stopped door's records folder, one task row in store.db
 * (seed-tasks.ts) and its life in trace.jsonl as the door writes it — its input, then turns of one inference call and
 * two tool calls (a turn is four spans: the turn, its model call, its two tool calls), every tenth turn a keep_working
 * nudge and a done check, every fiftieth a compaction — then its end and result. Every line of the trace schema.
 */
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { decodeTraceLine } from '../src/records/trace-lines.js';
import type { TraceLine } from '../src/records/trace-schema.js';
import { seedTasks } from './seed-tasks.js';

/** Spans one seeded turn makes in the console's trace: the turn, its model call and its two tool calls. */
const SPANS_PER_TURN = 4;

export interface SeededTrace {
  taskId: string;
  /** The record's entries (the console's trace holds about `spans`). */
  entries: number;
  spans: number;
  seedMs: number;
}

export async function seedTrace(recordsDir: string, spans: number, startMs = Date.now() - 3_600_000): Promise<SeededTrace> {
  const started = performance.now();
  const turns = Math.ceil(spans / SPANS_PER_TURN);
  // Each turn: a 40–100 ms call, two tool calls of 10–250 ms, a 5 ms gap; deterministic from the turn's number.
  const turnMs = (n: number) => 40 + ((n * 7919) % 61);
  const toolMs = (n: number, k: number) => 10 + (((n + k) * 104_729) % 241);
  let length = 0;
  for (let n = 1; n <= turns; n++) length += turnMs(n) + toolMs(n, 0) + toolMs(n, 1) + 5;
  const end = startMs + length + 20;
  const seeded = await seedTasks(path.join(recordsDir, 'store.db'), 1, () => ({
    state: 'TASK_STATE_COMPLETED',
    createdAtMs: startMs,
    statusTimestampMs: end,
    statusText: 'task completed',
    response: `seeded answer after ${turns} turns`,
  }));
  const taskId = seeded.idByChange(seeded.firstChange);
  const file = path.join(recordsDir, 'trace.jsonl');
  const ts = (ms: number) => new Date(ms).toISOString();
  const checked = new Set<string>();
  let buffer: string[] = [];
  let entries = 0;
  const write = (line: TraceLine, entry = true) => {
    if (!checked.has(line.type)) {
      const decoded = decodeTraceLine(JSON.stringify(line));
      if (typeof decoded === 'string') throw new Error(`seed-trace wrote a ${line.type} record off the trace schema: ${decoded}`);
      checked.add(line.type);
    }
    buffer.push(JSON.stringify(line));
    if (entry) entries += 1;
    if (buffer.length >= 4000) {
      appendFileSync(file, `${buffer.join('\n')}\n`);
      buffer = [];
    }
  };
  const text = `seeded long task: ${turns} turns`;
  write({
    ts: ts(startMs),
    type: 'task_start',
    task_id: taskId,
    context_id: 'ctx_seeded',
    message_id: 'msg-seed-trace',
    origin: 'seed',
    trust: 'trusted',
    text_chars: text.length,
    text,
    references: [],
    attachments: [],
  });
  let at = startMs + 10;
  for (let n = 1; n <= turns; n++) {
    if (n % 50 === 0) {
      write({
        ts: ts(at),
        type: 'compaction',
        task_id: taskId,
        turn: n,
        tokens_before: 90_000,
        tokens_before_source: 'actual',
        tokens_after: 30_000,
        budget_tokens: 80_000,
        threshold: 0.8,
        elided_results: 12,
        summarized_messages: 0,
        duration_ms: 0,
      });
    }
    const call = turnMs(n);
    at += call;
    write({
      ts: ts(at),
      type: 'inference',
      task_id: taskId,
      turn: n,
      driver: 'script',
      stop_reason: 'tool_use',
      usage: { input: 900 + n, output: 40 },
      tool_calls: 2,
      duration_ms: call,
      first_token_ms: Math.round(call / 3),
    });
    for (const k of [0, 1]) {
      const ms = toolMs(n, k);
      at += ms;
      write({
        ts: ts(at),
        type: 'tool_call',
        task_id: taskId,
        tool: k === 0 ? 'bash' : 'session-status',
        tool_call_id: `call_${n}_${k}`,
        status: 'passed',
        duration_ms: ms,
        exit_code: k === 0 ? 0 : null,
        input: k === 0 ? { command: `echo ${n}` } : {},
        output: `${n}`,
      });
    }
    if (n % 10 === 0) {
      write({ ts: ts(at + 1), type: 'keep_working', task_id: taskId, turn: n, used: n / 10, left: turns });
      write({
        ts: ts(at + 3),
        type: 'done_check',
        task_id: taskId,
        turn: n,
        exit_code: 1,
        timed_out: false,
        duration_ms: 2,
        outcome: 'sent_back',
        used: n / 10,
        left: turns,
      });
    }
    at += 5;
  }
  write({ ts: ts(end), type: 'task_end', task_id: taskId, state: 'TASK_STATE_COMPLETED', status: 'task completed', running_commands: [] });
  write({ ts: ts(end), type: 'task_result', task_id: taskId, chars: 10 });
  if (buffer.length > 0) appendFileSync(file, `${buffer.join('\n')}\n`);
  return { taskId, entries, spans: turns * SPANS_PER_TURN, seedMs: Math.round(performance.now() - started) };
}
