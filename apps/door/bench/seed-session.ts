/**
 * A session of N tasks with records, for the console's views at scale (e2e/tests/perf-views.spec.ts, `npm run
 * bench`): into a stopped door's records folder, N task rows in store.db (seed-tasks.ts, the door's columns) and each
 * task's life in trace.jsonl as the door writes it — its input, two inference calls with usage, a tool call, and its
 * end and result (or its question, for a task left waiting) — every line of the trace schema (records/trace-schema.ts).
 * Deterministic for a given N and start: states, durations, tokens and tools follow each task's number.
 */
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import type { TaskState } from '@murmur/protocol';
import { decodeTraceLine } from '../src/records/trace-lines.js';
import type { TraceLine } from '../src/records/trace-schema.js';
import { type SeedRow, seedTasks } from './seed-tasks.js';

const TOOLS = ['bash', 'read-file', 'write-file', 'call-member'] as const;
/** Lines per appendFileSync: about 1 MB of trace. */
const FLUSH_LINES = 4000;

export interface SeededSession {
  tasks: number;
  /** Ids of the first and last task seeded. */
  firstTaskId: string;
  lastTaskId: string;
  byState: Partial<Record<TaskState, number>>;
  seedMs: number;
}

/** Task n's state: most complete; every 20th fails, every 33rd is cancelled, every 50th waits for input. */
function stateOf(n: number): TaskState {
  if (n % 50 === 49) return 'TASK_STATE_INPUT_REQUIRED';
  if (n % 33 === 32) return 'TASK_STATE_CANCELED';
  if (n % 20 === 19) return 'TASK_STATE_FAILED';
  return 'TASK_STATE_COMPLETED';
}

/** A spread of durations (ms) from a task's number, without randomness. */
const spread = (n: number, min: number, range: number) => min + ((n * 7919) % 1009) * (range / 1009);

export async function seedSession(recordsDir: string, count: number, startMs = Date.now() - count * 500): Promise<SeededSession> {
  const started = performance.now();
  const rows: SeedRow[] = [];
  for (let n = 0; n < count; n++) {
    const state = stateOf(n);
    const createdAtMs = Math.round(startMs + n * 500);
    const durationMs = Math.round(spread(n, 300, 20_000));
    rows.push({
      state,
      createdAtMs,
      statusTimestampMs: createdAtMs + durationMs,
      statusText: state === 'TASK_STATE_COMPLETED' ? 'task completed' : state === 'TASK_STATE_INPUT_REQUIRED' ? 'Which branch?' : `seeded ${state}`,
      response: state === 'TASK_STATE_COMPLETED' ? `seeded answer ${n}` : null,
    });
  }
  const seeded = await seedTasks(path.join(recordsDir, 'store.db'), count, (n) => rows[n] as SeedRow);
  const file = path.join(recordsDir, 'trace.jsonl');
  const byState: Partial<Record<TaskState, number>> = {};
  const checked = new Set<string>();
  let buffer: string[] = [];
  const write = (line: TraceLine) => {
    // Each record type is checked once against the schema the door's readers decode with.
    if (!checked.has(line.type)) {
      const decoded = decodeTraceLine(JSON.stringify(line));
      if (typeof decoded === 'string') throw new Error(`seed-session wrote a ${line.type} record off the trace schema: ${decoded}`);
      checked.add(line.type);
    }
    buffer.push(JSON.stringify(line));
    if (buffer.length >= FLUSH_LINES) flush();
  };
  const flush = () => {
    if (buffer.length > 0) appendFileSync(file, `${buffer.join('\n')}\n`);
    buffer = [];
  };
  for (let n = 0; n < count; n++) {
    const row = rows[n] as SeedRow;
    const taskId = seeded.idByChange(seeded.firstChange + n);
    byState[row.state] = (byState[row.state] ?? 0) + 1;
    const ts = (ms: number) => new Date(ms).toISOString();
    const t0 = row.createdAtMs;
    const end = row.statusTimestampMs;
    const text = `seeded task ${n}: build the report`;
    write({
      ts: ts(t0),
      type: 'task_start',
      task_id: taskId,
      context_id: 'ctx_seeded',
      message_id: `msg-seed-${n}`,
      origin: 'seed',
      trust: 'trusted',
      text_chars: text.length,
      text,
      references: [],
      attachments: [],
    });
    const turn1 = Math.round((end - t0) * 0.2);
    const usage = { input: 800 + (n % 400), output: 40 + (n % 60), cached: n % 3 === 0 ? 600 : 0 };
    write({
      ts: ts(t0 + turn1),
      type: 'inference',
      task_id: taskId,
      turn: 1,
      driver: 'script',
      stop_reason: 'tool_use',
      usage,
      tool_calls: 1,
      duration_ms: turn1,
      first_token_ms: Math.round(turn1 / 4),
    });
    const tool = TOOLS[n % TOOLS.length] ?? 'bash';
    const toolMs = Math.round((end - t0) * 0.5);
    write({
      ts: ts(t0 + turn1 + toolMs),
      type: 'tool_call',
      task_id: taskId,
      tool,
      tool_call_id: `call_seed_${n}`,
      status: n % 17 === 0 ? 'error' : 'passed',
      duration_ms: toolMs,
      exit_code: tool === 'bash' ? (n % 17 === 0 ? 1 : 0) : null,
      input: { command: 'make report' },
      output: 'done',
    });
    if (row.state === 'TASK_STATE_INPUT_REQUIRED') {
      write({ ts: ts(end), type: 'task_input_required', task_id: taskId, prompt: 'Which branch?' });
      continue;
    }
    const turn2 = Math.round((end - t0) * 0.2);
    write({
      ts: ts(end - 5),
      type: 'inference',
      task_id: taskId,
      turn: 2,
      driver: 'script',
      stop_reason: 'end_turn',
      usage: { input: usage.input + 200, output: 30, cached: usage.cached },
      tool_calls: 0,
      duration_ms: turn2,
      first_token_ms: null,
    });
    write({ ts: ts(end), type: 'task_end', task_id: taskId, state: row.state, status: row.statusText, running_commands: [] });
    if (row.response !== null) write({ ts: ts(end), type: 'task_result', task_id: taskId, chars: row.response.length });
  }
  flush();
  return {
    tasks: count,
    firstTaskId: seeded.idByChange(seeded.firstChange),
    lastTaskId: seeded.idByChange(seeded.lastChange),
    byState,
    seedMs: Math.round(performance.now() - started),
  };
}
