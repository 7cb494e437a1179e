import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { TraceIndex } from './trace-index.js';
import type { TraceLine } from '../records/trace-schema.js';

const TS = '2026-12-01T10:00:00.000Z';
const start = (task: string, text = 'count the stars'): TraceLine => ({
  ts: TS,
  type: 'task_start',
  task_id: task,
  context_id: 'ctx_1',
  message_id: 'm1',
  origin: 'test',
  trust: 'trusted',
  text_chars: text.length,
  text,
  references: [],
  attachments: [],
});
const toolCall = (task: string, tool: string, output: string, id = 'call_1'): TraceLine => ({
  ts: TS,
  type: 'tool_call',
  task_id: task,
  tool,
  tool_call_id: id,
  status: 'passed',
  duration_ms: 3,
  exit_code: 0,
  input: { command: 'echo' },
  output,
});
const turn = (task: string, n: number): TraceLine => ({
  ts: TS,
  type: 'inference',
  task_id: task,
  turn: n,
  driver: 'script',
  stop_reason: 'tool_use',
  usage: 'unreported',
  tool_calls: 1,
  duration_ms: 2,
  first_token_ms: null,
});
const line = (record: TraceLine) => `${JSON.stringify(record)}\n`;

function traceFile(): string {
  return path.join(mkdtempSync(path.join(os.tmpdir(), 'murmur-index-')), 'trace.jsonl');
}

async function records(index: TraceIndex, lines: readonly number[], light = false): Promise<TraceLine[]> {
  return (await index.readAll(lines, { light })).records;
}

test('the index grows with the file: a refresh reads only what was appended, and a line not yet ended waits for its newline', async () => {
  const file = traceFile();
  writeFileSync(file, line(start('tsk_a')) + line(turn('tsk_a', 1)));
  const index = await new TraceIndex(file).refresh();
  assert.deepEqual(index.tasks.get('tsk_a')?.lines, [0, 1]);
  const cut = line(toolCall('tsk_a', 'bash', 'seven'));
  appendFileSync(file, cut.slice(0, 20));
  await index.refresh();
  assert.equal(index.tasks.get('tsk_a')?.lines.length, 2, 'half a line is not a line yet');
  assert.deepEqual(index.undecoded, { 'not-json': 0, 'unknown-type': 0, 'off-schema': 0 });
  appendFileSync(file, cut.slice(20) + line(start('tsk_b')));
  await index.refresh();
  const a = index.tasks.get('tsk_a')!;
  assert.deepEqual({ turns: a.turns, toolCalls: a.toolCalls, lines: a.lines }, { turns: 1, toolCalls: 1, lines: [0, 1, 2] });
  assert.deepEqual(await records(index, a.lines), [start('tsk_a'), turn('tsk_a', 1), toolCall('tsk_a', 'bash', 'seven')]);
  assert.deepEqual(index.tasks.get('tsk_b')?.lines, [3]);
});

test('lines that do not decode are counted and left out, and the lines after them are read by their own place', async () => {
  const file = traceFile();
  writeFileSync(file, `${line(start('tsk_a'))}{"cut\n${JSON.stringify({ ts: TS, type: 'from_the_future' })}\n\n${line(turn('tsk_a', 1))}`);
  const index = await new TraceIndex(file).refresh();
  assert.deepEqual(index.undecoded, { 'not-json': 1, 'unknown-type': 1, 'off-schema': 0 });
  assert.deepEqual(await records(index, index.tasks.get('tsk_a')!.lines), [start('tsk_a'), turn('tsk_a', 1)]);
});

test('a line longer than one read (1 MiB) is indexed and read back whole; lines are read in the order asked', async () => {
  const file = traceFile();
  const big = 'x'.repeat(3 * 1024 * 1024 + 17);
  writeFileSync(file, line(start('tsk_a')) + line(toolCall('tsk_a', 'bash', big)) + line(turn('tsk_a', 2)));
  const index = await new TraceIndex(file).refresh();
  const read = await records(index, [2, 1, 0]);
  assert.deepEqual(read, [turn('tsk_a', 2), toolCall('tsk_a', 'bash', big), start('tsk_a')]);
});

test('a light read drops a tool call’s input and output, except call-member’s and delegate-task’s, which link their calls', async () => {
  const file = traceFile();
  const linking = toolCall('tsk_a', 'call-member', '{"call_id":"mcl_1"}', 'call_2');
  const delegating = toolCall('tsk_a', 'delegate-task', '{"delegation_id":"dlg_1"}', 'call_3');
  writeFileSync(file, line(toolCall('tsk_a', 'bash', 'a long output')) + line(linking) + line(delegating));
  const index = await new TraceIndex(file).refresh();
  const task = index.tasks.get('tsk_a')!;
  assert.equal(task.callsMember, true);
  assert.deepEqual((await index.light(task)).records, [{ ...toolCall('tsk_a', 'bash', ''), input: null }, linking, delegating]);
  assert.deepEqual(await records(index, task.lines), [toolCall('tsk_a', 'bash', 'a long output'), linking, delegating], 'a full read keeps them');
});

test('read through a handle it is given: the same records, and the handle left open for the next read; its own it closes', async () => {
  const file = traceFile();
  writeFileSync(file, line(start('tsk_a')) + line(toolCall('tsk_a', 'bash', 'out a')) + line(start('tsk_b')) + line(toolCall('tsk_b', 'bash', 'out b')));
  const index = await new TraceIndex(file).refresh();
  const handle = (await index.openTrace())!;
  const a = index.tasks.get('tsk_a')!;
  const b = index.tasks.get('tsk_b')!;
  assert.deepEqual((await index.light(a, handle)).records, [start('tsk_a'), { ...toolCall('tsk_a', 'bash', ''), input: null }]);
  assert.deepEqual((await index.readAll(b.lines, { handle })).records, [start('tsk_b'), toolCall('tsk_b', 'bash', 'out b')]);
  assert.equal((await handle.stat()).size > 0, true, 'the handle is still open');
  await handle.close();
  const fds = readdirSync('/proc/self/fd').length;
  await index.readAll(a.lines);
  assert.equal(readdirSync('/proc/self/fd').length, fds, 'a read without a handle closes the one it opened');
  assert.equal(await new TraceIndex(path.join(path.dirname(file), 'none.jsonl')).openTrace(), null, 'no file: no handle');
});

test('a file replaced or shortened is indexed afresh', async () => {
  const file = traceFile();
  writeFileSync(file, line(start('tsk_a')) + line(turn('tsk_a', 1)));
  const index = await new TraceIndex(file).refresh();
  const replacement = `${file}.new`;
  writeFileSync(replacement, line(start('tsk_b', 'a new file')));
  renameSync(replacement, file);
  await index.refresh();
  assert.deepEqual([...index.tasks.keys()], ['tsk_b']);
  assert.deepEqual(await records(index, index.tasks.get('tsk_b')!.lines), [start('tsk_b', 'a new file')]);
  writeFileSync(file, '');
  await index.refresh();
  assert.equal(index.tasks.size, 0);
});

test('a missing file indexes as an empty trace', async () => {
  const index = await new TraceIndex(path.join(os.tmpdir(), 'murmur-no-such-folder', 'trace.jsonl')).refresh();
  assert.equal(index.tasks.size, 0);
  assert.deepEqual(await records(index, []), []);
});

test('a refresh that keeps a task gives its light read without reading its lines again, and keeps it as lines are appended', async () => {
  const file = traceFile();
  const calls = [toolCall('tsk_a', 'bash', 'one', 'call_1'), toolCall('tsk_a', 'bash', 'two', 'call_2')];
  writeFileSync(file, line(start('tsk_a')) + line(start('tsk_b')) + line(calls[0]));
  const index = await new TraceIndex(file).refresh({ keep: 'tsk_a' });
  const light = (record: TraceLine) => (record.type === 'tool_call' ? { ...record, input: null, output: '' } : record);
  const expected = [start('tsk_a'), light(calls[0])];
  // The same bytes overwritten in place: a read of the file now would not decode; the kept records answer.
  const size = readFileSync(file).length;
  writeFileSync(file, ' '.repeat(size - 1) + '\n');
  const task = index.tasks.get('tsk_a')!;
  assert.deepEqual(await index.light(task), { lines: [0, 2], records: expected });

  const fresh = traceFile();
  writeFileSync(fresh, line(start('tsk_a')) + line(calls[0]));
  const growing = await new TraceIndex(fresh).refresh({ keep: 'tsk_a' });
  appendFileSync(fresh, line(start('tsk_b')) + line(calls[1]));
  await growing.refresh({ keep: 'tsk_a' });
  const grown = growing.tasks.get('tsk_a')!;
  assert.deepEqual(await growing.light(grown), { lines: [0, 1, 3], records: [start('tsk_a'), light(calls[0]), light(calls[1])] });
  assert.deepEqual(await new TraceIndex(fresh).refresh().then((i) => i.light(i.tasks.get('tsk_a')!)), await growing.light(grown), 'as a light read gives');
});
