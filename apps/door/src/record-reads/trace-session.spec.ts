import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { TraceSession } from './trace-session.js';
import type { TraceLine } from '../records/trace-schema.js';

const SESSION = 'ses_0123456789abcdef0123456789abcdef';
const sessionStart = (ts: string, name: string, url: string): TraceLine => ({
  ts,
  type: 'session_start',
  session_id: SESSION,
  name,
  version: '0.1.0',
  url,
  resumed: false,
  tools_declared: [],
  sandbox: 'off',
});
const sessionEnd = (ts: string): TraceLine => ({ ts, type: 'session_end', session_id: SESSION });
const toolCall = (output: string): TraceLine => ({
  ts: '2026-12-01T10:00:01.000Z',
  type: 'tool_call',
  task_id: 'tsk_a',
  tool: 'bash',
  tool_call_id: 'call_1',
  status: 'passed',
  duration_ms: 3,
  exit_code: 0,
  input: { command: 'echo' },
  output,
});
const line = (record: TraceLine) => `${JSON.stringify(record)}\n`;

function traceFile(): string {
  return path.join(mkdtempSync(path.join(os.tmpdir(), 'murmur-session-')), 'trace.jsonl');
}

test('the facts of the session lines alone: the first name and start, the last URL, an end cleared by a reopening', async () => {
  const file = traceFile();
  writeFileSync(file, line(sessionStart('2026-12-01T10:00:00.000Z', 'hello', 'http://127.0.0.1:4000')) + line(toolCall('not a session line')));
  const session = new TraceSession(file);
  assert.deepEqual(await session.scan(), { name: 'hello', url: 'http://127.0.0.1:4000', startedAt: '2026-12-01T10:00:00.000Z', endedAt: null });
  appendFileSync(file, line(sessionEnd('2026-12-01T11:00:00.000Z')));
  assert.equal((await session.scan()).endedAt, '2026-12-01T11:00:00.000Z');
  appendFileSync(file, line(sessionStart('2026-12-01T12:00:00.000Z', 'renamed', 'http://127.0.0.1:4100')));
  assert.deepEqual(await session.scan(), { name: 'hello', url: 'http://127.0.0.1:4100', startedAt: '2026-12-01T10:00:00.000Z', endedAt: null });
});

test('a line that only mentions a session line, or one off its schema, is not one; a line longer than one read is read whole', async () => {
  const file = traceFile();
  const mention = toolCall(`${line(sessionEnd('2026-12-01T10:30:00.000Z'))}session_start`);
  const offSchema = JSON.stringify({ ts: '2026-12-01T10:40:00.000Z', type: 'session_end' });
  const big = toolCall(`${'x'.repeat(3 * 1024 * 1024 + 17)} session_end`);
  writeFileSync(file, line(sessionStart('2026-12-01T10:00:00.000Z', 'hello', 'http://127.0.0.1:4000')) + line(mention) + `${offSchema}\n` + line(big));
  assert.equal((await new TraceSession(file).scan()).endedAt, null);
  appendFileSync(file, line(sessionEnd('2026-12-01T11:00:00.000Z')));
  assert.equal((await new TraceSession(file).scan()).endedAt, '2026-12-01T11:00:00.000Z');
});

test('a last line not yet ended waits for its newline; a file replaced is read afresh; a missing one has no facts', async () => {
  const file = traceFile();
  const end = line(sessionEnd('2026-12-01T11:00:00.000Z'));
  writeFileSync(file, line(sessionStart('2026-12-01T10:00:00.000Z', 'hello', 'http://127.0.0.1:4000')) + end.slice(0, 30));
  const session = new TraceSession(file);
  assert.equal((await session.scan()).endedAt, null);
  appendFileSync(file, end.slice(30));
  assert.equal((await session.scan()).endedAt, '2026-12-01T11:00:00.000Z');
  writeFileSync(`${file}.new`, line(sessionStart('2026-12-02T10:00:00.000Z', 'other', 'http://127.0.0.1:5000')));
  renameSync(`${file}.new`, file);
  assert.deepEqual(await session.scan(), { name: 'other', url: 'http://127.0.0.1:5000', startedAt: '2026-12-02T10:00:00.000Z', endedAt: null });
  const missing = new TraceSession(path.join(os.tmpdir(), 'murmur-no-such-folder', 'trace.jsonl'));
  assert.deepEqual(await missing.scan(), { name: null, url: null, startedAt: null, endedAt: null });
});
