import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { decodeTraceLine } from './trace-lines.js';
import type { TraceLine } from './trace-schema.js';
import { TraceWriter } from './trace-writer.js';

const TS = '2026-12-01T10:00:00.000Z';
const result = { ts: TS, type: 'task_result', task_id: 'tsk_1', chars: 4 };

test('a line decodes to its type and exactly the fields its schema gives; fields the schema does not name are dropped', () => {
  assert.deepEqual(decodeTraceLine(JSON.stringify({ ...result, extra: 'x' })), result);
});

test('a line is decoded whole or not at all, and says why not', () => {
  assert.equal(decodeTraceLine('{"ts":"2026-12-01T10:00:00.000Z","type":"task_res'), 'not-json');
  assert.equal(decodeTraceLine(JSON.stringify({ ...result, type: 'task_from_the_future' })), 'unknown-type');
  assert.equal(decodeTraceLine(JSON.stringify({ ...result, chars: '4' })), 'off-schema', 'a field of the wrong type');
  assert.equal(decodeTraceLine(JSON.stringify({ type: 'task_result', task_id: 'tsk_1', chars: 4 })), 'off-schema', 'no ts');
  const { chars: _, ...noChars } = result;
  assert.equal(decodeTraceLine(JSON.stringify(noChars)), 'off-schema', 'a field missing');
  assert.equal(decodeTraceLine('[1,2]'), 'off-schema');
  assert.equal(decodeTraceLine(JSON.stringify({ ...result, type: 'toString' })), 'unknown-type', 'an inherited name is no type');
});

test('an inference record: its telemetry call facts are optional, each of its own type (docs/records.md)', () => {
  const base = {
    ts: TS,
    type: 'inference',
    task_id: 'tsk_1',
    turn: 1,
    driver: 'default',
    stop_reason: 'end_turn',
    usage: 'unreported',
    tool_calls: 0,
    duration_ms: 5,
    first_token_ms: null,
  };
  const facts = { driver_kind: 'openai-compatible', max_tokens: 1024, response_id: 'chatcmpl-1', response_model: 'gpt-4o-mini-2024-07-18' };
  assert.deepEqual(decodeTraceLine(JSON.stringify({ ...base, ...facts })), { ...base, ...facts });
  assert.deepEqual(decodeTraceLine(JSON.stringify(base)), base, 'a record written before them (or by the script driver) decodes without them');
  for (const wrong of [{ driver_kind: 1 }, { max_tokens: '1024' }, { response_id: null }, { response_model: 7 }]) {
    assert.equal(decodeTraceLine(JSON.stringify({ ...base, ...wrong })), 'off-schema', JSON.stringify(wrong));
  }
});

test('what the writer writes, the reader reads back, and the taps see the same line', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'murmur-trace-'));
  const writer = new TraceWriter(dir);
  const tapped: TraceLine[] = [];
  writer.tap((line) => tapped.push(line));
  writer.write('task_input_required', { task_id: 'tsk_1', prompt: 'Which branch?' });
  writer.writeAll([
    ['task_end', { task_id: 'tsk_1', state: 'TASK_STATE_COMPLETED', status: null, running_commands: [] }],
    ['task_result', { task_id: 'tsk_1', chars: 4 }],
  ]);
  const lines = readFileSync(writer.file, 'utf8').trimEnd().split('\n').map(decodeTraceLine) as TraceLine[];
  assert.deepEqual(lines, tapped);
  assert.deepEqual(
    lines.map((l) => l.type),
    ['task_input_required', 'task_end', 'task_result'],
  );
  assert.equal(lines[1].ts, lines[2].ts, 'records written together share one ts');
});
