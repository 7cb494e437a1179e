/**
 * The agent loop a real model can drive (docs/agent-loop.md): the inventory staged and sent from one list, inputs
 * checked against the tools' schemas, session-status field by field, token usage in the inference records, the
 * per-session workdir, and the deadline — its one-time notice and the end of the session.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse } from 'yaml';
import { taskOf } from './support/assertions.js';
import { type DoorProcess, makeCapsule, runDoor } from './support/door-process.js';
import { send } from './support/rpc.js';
import { lifecycleManifest, readTrace } from './support/tasks.js';

const SCRIPT = `
rules:
  - match: '^inventory$'
    turns:
      - answer: "{{inventory}}"
  - match: '^status$'
    turns:
      - usage: { input: 120, output: 7, cached: 100, cache_write: 20 }
        tools:
          - tool: session-status
            input: {}
      - usage: { input: 300, output: 11 }
        tools:
          - tool: session-status
            input: {}
        answer: "{{tool.stdout}}"
  - match: '^bare status$'
    turns:
      - tools:
          - tool: session-status
            input: {}
        answer: "{{tool.stdout}}"
  - match: '^bad (.*)$'
    turns:
      - tools:
          - tool: bash
            input: { command: 5 }
      - tools:
          - tool: bash
            input: { bogus: 1 }
      - tools:
          - tool: background-command
            input: { operation: restart, work_id: wrk_1 }
      - tools:
          - tool: background-command
            input: { operation: status }
        answer: done
  - match: '^where$'
    turns:
      - tools:
          - tool: bash
            input: { command: "pwd" }
        answer: "{{tool.stdout}}"
  - match: '^notice$'
    turns:
      - tools:
          - tool: nosuchtool
            input: {}
      - tools:
          - tool: bash
            input: { command: "exit 3" }
      - tools:
          - tool: bash
            input: { command: "echo later" }
        answer: done
  - match: '^nap$'
    turns:
      - sleep_ms: 60000
        answer: rested
default:
  turns:
    - answer: "no rule"
`;

const doors: DoorProcess[] = [];
after(() => Promise.all(doors.map((d) => d.stop('SIGKILL'))));
async function door(manifest: string, args: string[] = []): Promise<DoorProcess> {
  const d = await runDoor(makeCapsule(manifest, SCRIPT), args);
  doors.push(d);
  return d;
}
const answerOf = async (url: string, text: string): Promise<string> => {
  const task = taskOf(await send(url, text));
  assert.equal(task.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(task));
  return task.artifacts[0].parts[0].text;
};
const toolManifest = (d: DoorProcess, name: string) => path.join(d.recordsDir, 'runtime', 'tools', name, 'murmur.yaml');

describe('the inventory: one list staged, declared and sent', () => {
  let granted: DoorProcess;
  let plain: DoorProcess;
  let none: DoorProcess;
  before(async () => {
    [granted, plain, none] = await Promise.all([
      door(lifecycleManifest({ graceSecs: 2 })),
      door(lifecycleManifest({})),
      door('name: observer\nversion: 0.1.0\nlifecycle:\n  task_acceptance: none\ncapabilities:\n  shell:\n    allow: [bash]\n'),
    ]);
  });

  test('with the grant: a manifest per tool, session_start’s tools_declared, and the list the model is sent', async () => {
    for (const name of ['bash', 'session-status', 'background-command']) {
      const manifest = parse(readFileSync(toolManifest(granted, name), 'utf8'));
      assert.equal(manifest.name, name);
      assert.equal(manifest.version, '0.0.0');
      assert.equal(manifest.runtime, 'tool');
      assert.equal(manifest.implementation, 'native');
      assert.equal(typeof manifest.description, 'string');
      assert.equal(manifest.input_schema.type, 'object');
    }
    assert.deepEqual(parse(readFileSync(toolManifest(granted, 'background-command'), 'utf8')).input_schema.required, ['operation', 'work_id']);
    assert.deepEqual(readTrace(granted.recordsDir).find((r) => r.type === 'session_start')?.tools_declared, ['bash', 'session-status', 'background-command']);
    assert.equal(await answerOf(granted.url, 'inventory'), 'bash, session-status, background-command');
  });

  test('without the grant: no manifest, not declared, not sent', async () => {
    assert.equal(existsSync(toolManifest(plain, 'background-command')), false);
    assert.deepEqual(readTrace(plain.recordsDir).find((r) => r.type === 'session_start')?.tools_declared, ['bash', 'session-status']);
    assert.equal(await answerOf(plain.url, 'inventory'), 'bash, session-status');
  });

  test('a capsule with no inference: block has no session-status', () => {
    assert.equal(existsSync(toolManifest(none, 'session-status')), false);
    assert.equal(existsSync(toolManifest(none, 'bash')), true);
    assert.deepEqual(readTrace(none.recordsDir).find((r) => r.type === 'session_start')?.tools_declared, ['bash']);
  });

  test('inputs are checked against the schemas before anything runs; refusals are tool errors naming field and value', async () => {
    await answerOf(granted.url, 'bad input');
    const trace = readTrace(granted.recordsDir);
    const calls = trace.filter((r) => r.type === 'tool_call' && r.status === 'error').slice(-4);
    assert.equal(calls.length, 4);
    assert.equal(trace.filter((r) => r.type === 'background_command').length, 0, 'a refused call writes no background_command record');
  });

  test('the refusal texts', async () => {
    const cases = [
      ['bash', '{ command: 5 }', 'command 5 is not a string'],
      ['bash', '{ bogus: 1 }', 'the input has an unknown field "bogus"'],
      ['background-command', '{ operation: restart, work_id: wrk_1 }', 'operation "restart" is not one of status, wait, stop'],
      ['background-command', '{ operation: status }', 'work_id is required'],
      ['background-command', '{ operation: wait, work_id: wrk_1, wait_secs: -1 }', 'wait_secs -1 must be >= 0'],
    ] as const;
    // One door, a rule a case: task "case N" makes case N's one call and answers with what the call was told.
    const rules = cases.map(
      ([tool, input], i) =>
        `  - match: '^case ${i}$'\n    turns:\n      - tools:\n          - tool: ${tool}\n            input: ${input}\n        answer: "{{tool.stderr}}"\n`,
    );
    const one = await runDoor(makeCapsule(lifecycleManifest({ graceSecs: 2 }), `rules:\n${rules.join('')}default:\n  turns:\n    - answer: "no rule"\n`));
    doors.push(one);
    for (const [i, [tool, input, expected]] of cases.entries()) assert.equal(await answerOf(one.url, `case ${i}`), expected, `${tool} ${input}`);
    await one.stop();
  });
});

describe('session-status', () => {
  test('every field, measured at the call, and one session_status record per call', async () => {
    const d = await door(lifecycleManifest({ maxTurns: 6 }));
    const status = JSON.parse(await answerOf(d.url, 'status'));
    assert.deepEqual(Object.keys(status), ['time', 'turns', 'keep_working', 'done_check', 'context', 'tokens', 'spend']);
    assert.ok(Number.isInteger(status.time.elapsed_secs) && status.time.elapsed_secs >= 0);
    assert.ok(Number.isInteger(status.time.task_elapsed_secs) && status.time.task_elapsed_secs <= status.time.elapsed_secs);
    assert.equal(status.time.deadline, 'none', 'no --deadline');
    assert.deepEqual(status.turns, { used: 2, cap: 6 });
    assert.equal(status.keep_working, 'none');
    assert.equal(status.done_check, 'none');
    assert.deepEqual(status.context, { used_tokens: 311, window_tokens: 'none', budget_tokens: 'none', budget_basis: 'none', measured_by: 'actual' });
    assert.deepEqual(status.tokens, { input: 420, output: 18, cached: 100, cache_write: 20, unreported_calls: 0 });
    assert.deepEqual(status.spend, { tokens: 438, ceiling: 'none', machine: 'none' });
    const records = readTrace(d.recordsDir).filter((r) => r.type === 'session_status');
    assert.equal(records.length, 2);
    assert.deepEqual(records[1].status, status);
    const inference = readTrace(d.recordsDir).filter((r) => r.type === 'inference');
    assert.deepEqual(inference.map((r) => [r.driver, r.stop_reason, r.usage]).slice(0, 2), [
      ['script', 'tool_use', { input: 120, output: 7, cached: 100, cacheWrite: 20 }],
      ['script', 'tool_use', { input: 300, output: 11 }],
    ]);
  });

  test('a call that reported no usage: tokens unknown, counted as unreported; the context estimated', async () => {
    const d = await door(lifecycleManifest({}));
    const status = JSON.parse(await answerOf(d.url, 'bare status'));
    assert.deepEqual(status.tokens, { input: 'unknown', output: 'unknown', cached: 'unknown', cache_write: 'unknown', unreported_calls: 1 });
    assert.equal(status.context.measured_by, 'estimate');
    assert.ok(status.context.used_tokens > 0);
    assert.equal(readTrace(d.recordsDir).find((r) => r.type === 'inference')?.usage, 'unreported');
  });
});

describe('the workdir', () => {
  test('tools run in the session’s own work folder, not the capsule folder', async () => {
    const d = await door(lifecycleManifest({}));
    assert.equal(await answerOf(d.url, 'where'), path.join(d.recordsDir, 'work'));
  });
});

describe('the deadline', () => {
  test('session-status reports it; the first tool result inside the margin that ran carries the notice, once', async () => {
    const d = await door(`${lifecycleManifest({}).replace('lifecycle:\n', 'lifecycle:\n  deadline_notice_secs: 3600\n')}`, ['--deadline', '20m']);
    const status = JSON.parse(await answerOf(d.url, 'bare status'));
    assert.match(status.time.deadline.at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    assert.ok(status.time.deadline.left_secs > 1100 && status.time.deadline.left_secs <= 1200, String(status.time.deadline.left_secs));
    // That call already carried the notice (it ran inside the one-hour margin): nothing more is sent.
    await answerOf(d.url, 'notice');
    const notices = readTrace(d.recordsDir).filter((r) => r.type === 'deadline_notice');
    assert.equal(notices.length, 1);
    assert.equal(notices[0].at, status.time.deadline.at);
  });

  test('the notice skips a refused call and rides the next result that ran, even a failed one', async () => {
    const d = await door(`${lifecycleManifest({}).replace('lifecycle:\n', 'lifecycle:\n  deadline_notice_secs: 3600\n')}`, ['--deadline', '30m']);
    await answerOf(d.url, 'notice');
    const calls = readTrace(d.recordsDir).filter((r) => r.type === 'tool_call');
    const notices = readTrace(d.recordsDir).filter((r) => r.type === 'deadline_notice');
    assert.equal(notices.length, 1);
    assert.equal(notices[0].tool_call_id, calls[1].tool_call_id, 'the second call (exit 3) carries it, not the refused first');
  });

  test('the deadline ends the session: live tasks fail saying so, and the process exits 0', async () => {
    // 10 s from the launch: a loaded machine's start took more than 4 (the door had ended before the task was sent).
    const d = await door(lifecycleManifest({}), ['--deadline', '10s']);
    // Live at the deadline, working or still queued: either way it fails saying so.
    const id = taskOf(await send(d.url, 'nap', {}, { returnImmediately: true })).id;
    const exit = await d.exited;
    assert.deepEqual(exit, { code: 0, signal: null });
    const trace = readTrace(d.recordsDir);
    const end = trace.find((r) => r.type === 'task_end' && r.task_id === id);
    assert.equal(end?.state, 'TASK_STATE_FAILED');
    assert.match(String(end?.status), /^session deadline reached: the runtime ended this session at \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    assert.ok(trace.some((r) => r.type === 'session_deadline'));
  });

  test('--deadline refuses what is not a time', async () => {
    await assert.rejects(door(lifecycleManifest({}), ['--deadline', 'soon']), /--deadline takes an RFC 3339 timestamp/);
    await assert.rejects(door(lifecycleManifest({}), ['--deadline', '2020-01-01T00:00:00Z']), /has already passed/);
  });
});
