/**
 * The record plane's memory bound (docs/console.md, "Read through an index, never whole"): a door whose session holds
 * a task of 10,000 tool calls, each with a 32 KiB output (a trace of about 330 MB, more than the door's capped heap),
 * serves that task's every page and its whole export, and its peak RSS stays under the documented ceiling.
 */
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { type ConsoleTaskRecordPage, type ConsoleTaskSummariesPage, RECORD_PAGE_MAX, RECORDS_PLANE_PATH, type TaskRecordEntry } from '@murmur/protocol';
import { seedTasks } from '../bench/seed-tasks.js';
import { type DoorProcess, makeCapsule, manifestYaml, runDoor } from './support/door-process.js';
import { HEAP_CAP_MIB, RSS_CEILING_MIB } from './hostile/memory-ceiling.js';

const TOOL_CALLS = 10_000;
const OUTPUT_BYTES = 32 * 1024;
const INPUT = 'tally every ledger of the archive';

/**
 * A trace line as docs/records.md describes one: `ts`, `type`, then that type's fields (docs/records.md, "The record
 * types"). The door decodes each line whole or skips it, so a seeded line off its schema would be missing from the
 * pages below, and the count of each entry kind the test asserts would not hold.
 */
type SeedLine = { ts: string; type: string } & Record<string, unknown>;

/** Tool call i's output: its number first, so a page that placed the wrong output shows it. */
const outputOf = (i: number) => `ledger ${i} `.padEnd(OUTPUT_BYTES, 'x');

/** The peak RSS of a process over its life (VmHWM), in MiB. */
function peakRssMiB(pid: number): number {
  return Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
}

/** Writes one completed task of TOOL_CALLS tool calls into a stopped session's store.db and trace.jsonl. */
async function seedBigTask(recordsDir: string): Promise<string> {
  const startMs = Date.now() - TOOL_CALLS * 10 - 60_000;
  const endMs = startMs + TOOL_CALLS * 10 + 100;
  const seeded = await seedTasks(path.join(recordsDir, 'store.db'), 1, () => ({
    state: 'TASK_STATE_COMPLETED',
    createdAtMs: startMs,
    statusTimestampMs: endMs,
    statusText: 'task completed',
    response: 'every ledger tallied',
  }));
  const taskId = seeded.idByChange(seeded.firstChange);
  const ts = (ms: number) => new Date(ms).toISOString();
  const file = path.join(recordsDir, 'trace.jsonl');
  const lines: SeedLine[] = [
    {
      ts: ts(startMs),
      type: 'task_start',
      task_id: taskId,
      context_id: 'ctx_big',
      message_id: 'msg-big',
      origin: 'seed',
      trust: 'trusted',
      text_chars: INPUT.length,
      text: INPUT,
      references: [],
      attachments: [],
    },
    {
      ts: ts(startMs + 5),
      type: 'inference',
      task_id: taskId,
      turn: 1,
      driver: 'script',
      stop_reason: 'tool_use',
      usage: { input: 100, output: 10, cached: 0 },
      tool_calls: TOOL_CALLS,
      duration_ms: 5,
      first_token_ms: 1,
    },
  ];
  let batch = lines.map((l) => JSON.stringify(l));
  for (let i = 0; i < TOOL_CALLS; i++) {
    const line: SeedLine = {
      ts: ts(startMs + 10 + i * 10),
      type: 'tool_call',
      task_id: taskId,
      tool: 'bash',
      tool_call_id: `call_${i}`,
      status: 'passed',
      duration_ms: 5,
      exit_code: 0,
      input: { command: `tally ledger ${i}` },
      output: outputOf(i),
    };
    batch.push(JSON.stringify(line));
    if (batch.length >= 1000) {
      appendFileSync(file, `${batch.join('\n')}\n`);
      batch = [];
    }
  }
  const tail: SeedLine[] = [
    {
      ts: ts(endMs - 5),
      type: 'inference',
      task_id: taskId,
      turn: 2,
      driver: 'script',
      stop_reason: 'end_turn',
      usage: { input: 200, output: 20, cached: 0 },
      tool_calls: 0,
      duration_ms: 5,
      first_token_ms: 1,
    },
    { ts: ts(endMs), type: 'task_end', task_id: taskId, state: 'TASK_STATE_COMPLETED', status: 'task completed', running_commands: [] },
    { ts: ts(endMs), type: 'task_result', task_id: taskId, chars: 20 },
  ];
  appendFileSync(file, `${[...batch, ...tail.map((l) => JSON.stringify(l))].join('\n')}\n`);
  return taskId;
}

let door: DoorProcess;
let taskId: string;

before(async () => {
  const capsule = makeCapsule(manifestYaml({ name: 'ledgers' }), 'default:\n  turns:\n    - answer: done\n');
  const first = await runDoor(capsule);
  await first.stop();
  taskId = await seedBigTask(first.recordsDir);
  door = await runDoor(capsule, ['--resume', first.sessionId], first.home, { nodeFlags: [`--max-old-space-size=${HEAP_CAP_MIB}`] });
});

after(async () => {
  // Not door.stop(): its trace check would read the 330 MB trace into the test's own memory.
  if (door.child.exitCode === null && door.child.signalCode === null) door.child.kill('SIGTERM');
  await door.exited;
});

const recordUrl = (rest: string) => `${door.url}${RECORDS_PLANE_PATH}${rest}`;

test(`every page of a task of ${TOOL_CALLS.toLocaleString('en')} tool calls of 32 KiB, then its export, with the door's peak RSS under ${RSS_CEILING_MIB} MiB (heap capped at ${HEAP_CAP_MIB} MB)`, {
  timeout: 600_000,
}, async () => {
  let cursor: string | null = '';
  let pages = 0;
  const kinds: Record<string, number> = {};
  let toolCall = 0;
  while (cursor !== null) {
    const answer = await fetch(recordUrl(`/tasks/${taskId}?limit=${RECORD_PAGE_MAX}${cursor === '' ? '' : `&cursor=${cursor}`}`));
    assert.equal(answer.status, 200);
    const page = (await answer.json()) as ConsoleTaskRecordPage;
    assert.equal(page.total, TOOL_CALLS + 5, 'input, two turns, the tool calls, the answer and the end');
    assert.ok(page.entries.length > 0 && page.entries.length < RECORD_PAGE_MAX, 'a page stops at 4 Mi characters, before its limit');
    for (const entry of page.entries) {
      kinds[entry.kind] = (kinds[entry.kind] ?? 0) + 1;
      if (entry.kind !== 'tool-call') continue;
      assert.equal(entry.output, outputOf(toolCall), `tool call ${toolCall}'s output, in full`);
      assert.deepEqual(entry.input, { command: `tally ledger ${toolCall}` });
      toolCall++;
    }
    cursor = page.nextCursor;
    pages++;
  }
  assert.deepEqual(kinds, { input: 1, turn: 2, 'tool-call': TOOL_CALLS, answer: 1, end: 1 });
  assert.ok(pages >= 70, `${pages} pages`);

  // The export: every entry, one line each, read as it streams.
  const exported = await fetch(recordUrl(`/tasks/${taskId}/export`));
  assert.equal(exported.status, 200);
  let lines = 0;
  let last = '';
  let rest = '';
  const decoder = new TextDecoder();
  for await (const chunk of exported.body as unknown as AsyncIterable<Uint8Array>) {
    const text = rest + decoder.decode(chunk, { stream: true });
    const parts = text.split('\n');
    rest = parts.pop() ?? '';
    lines += parts.length;
    if (parts.length > 0) last = parts[parts.length - 1];
  }
  assert.equal(rest, '', 'the export ends with a newline');
  assert.equal(lines, 1 + TOOL_CALLS + 5, 'the task line, then each entry');
  assert.equal((JSON.parse(last) as TaskRecordEntry).kind, 'end');

  // The session's task list searches the input without reading the tool calls.
  const search = (await (await fetch(recordUrl(`/sessions/${door.sessionId}/tasks?q=ledger`))).json()) as ConsoleTaskSummariesPage;
  assert.deepEqual(
    search.tasks.map((t) => [t.taskId, t.toolCalls, t.input]),
    [[taskId, TOOL_CALLS, INPUT]],
  );

  assert.equal(door.child.exitCode, null, 'the door is still running');
  const peak = peakRssMiB(door.pid);
  console.log(`# records-memory: ${pages} pages, ${lines} export lines, door peak RSS ${peak.toFixed(0)} MiB`);
  assert.ok(peak < RSS_CEILING_MIB, `peak RSS ${peak.toFixed(0)} MiB`);
});
