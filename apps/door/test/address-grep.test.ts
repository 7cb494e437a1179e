/**
 * The address grep every suite's doors pass through when they stop (support/door-process.ts, support/formation.ts;
 * seed 004: "The model never sees the door's address or the token"): shown here to catch what issue 29 found — a
 * dead member's failure naming its door's URL — and a token, and to let through only what is the model's own or
 * share-file's handle URL.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { tempDir } from './support/door-process.js';
import { assertNoAddressToModel } from './support/trace-schema-check.js';

function traceOf(...calls: { tool: string; input: unknown; output: string }[]): string {
  const dir = tempDir('address-grep');
  const lines = calls.map((c, i) =>
    JSON.stringify({ ts: '2026-12-01T00:00:00.000Z', type: 'tool_call', task_id: 'tsk_1', tool_call_id: `call_${i}`, status: 'passed', ...c }),
  );
  writeFileSync(path.join(dir, 'trace.jsonl'), `${lines.join('\n')}\n{"ts":"cut short`);
  return dir;
}

test("a member's failure that names its door's address, or a token in a result, fails the grep", () => {
  const before29 = traceOf({
    tool: 'call-member',
    input: { member: 'gone', task: 'x' },
    output: "gone's door could not be reached: SendMessage: no answer from http://127.0.0.1:41234/: fetch failed",
  });
  assert.throws(() => assertNoAddressToModel(before29), /1 tool result\(s\) handed the model a door's address or a token, first: call-member: gone's door/);
  const token = traceOf({ tool: 'session-status', input: {}, output: '{"token":"mur_abc"}' });
  assert.throws(() => assertNoAddressToModel(token), /session-status/);
});

test("what the model wrote itself, and share-file's handle URL, pass", () => {
  const dir = traceOf(
    { tool: 'call-member', input: { member: 'worker', task: 'x' }, output: "worker's door could not be reached: the connection was refused" },
    { tool: 'bash', input: { command: 'echo http://example.test/' }, output: 'http://example.test/' },
    {
      tool: 'share-file',
      input: { path: 'a.txt', audience: 'reader' },
      output: '{"handle_id":"hdl_1","url":"http://127.0.0.1:4000/resources/peer/phk_…","uses":1}',
    },
  );
  assertNoAddressToModel(dir);
});
