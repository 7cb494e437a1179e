/**
 * The operator's hooks on real doors (docs/agent-loop.md, "Hooks"): the on_tool_call decision point every tool call
 * passes — shell binaries and runtime tools — where a denied call runs nothing and writes no frame; on_task_end's
 * artifacts before the final status; its reopens, with the new attempt's ids starting again at 0, bounded by
 * lifecycle.max_task_reopens.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { taskOf } from './support/assertions.js';
import { type DoorProcess, makeCapsule, runDoor } from './support/door-process.js';
import { send } from './support/rpc.js';
import { frameOf, type SseReader, taskEventLabels, taskIdOf, watchSession } from './support/sse.js';
import { readTrace } from './support/tasks.js';

function manifest(opts: { hooks: string[]; reopens?: number; shell?: boolean }): string {
  return [
    'name: hooked',
    'version: 0.1.0',
    'lifecycle:',
    '  task_acceptance: queue',
    ...(opts.reopens !== undefined ? [`  max_task_reopens: ${opts.reopens}`] : []),
    'inference:',
    '  driver: script',
    '  script: script.yaml',
    '  max_turns: 10',
    ...(opts.shell === false ? [] : ['capabilities:', '  shell:', '    allow: [bash]']),
    'hooks:',
    ...opts.hooks.map((l) => `  ${l}`),
    '',
  ].join('\n');
}

const doors: DoorProcess[] = [];
const watchers: SseReader[] = [];
after(async () => {
  for (const w of watchers) w.abort();
  await Promise.all(doors.map((d) => d.stop()));
});
async function door(text: string, script: string): Promise<{ d: DoorProcess; watcher: SseReader }> {
  const d = await runDoor(makeCapsule(text, script));
  doors.push(d);
  const watcher = await watchSession(d.url);
  watchers.push(watcher);
  return { d, watcher };
}
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON shapes
const answerText = (task: any): string => task.artifacts?.[0]?.parts?.[0]?.text ?? '';

describe('on_tool_call: the decision point', () => {
  const POLICY = [
    'on_tool_call:',
    '  - name: no-bash',
    `    command: "if grep -q '\\"tool\\":\\"bash\\"'; then echo 'no bash today'; exit 2; fi"`,
    '  - name: no-status-twice',
    `    command: "if grep -q '\\"tool_call_id\\":\\"call_3\\"'; then exit 1; fi"`,
  ];
  const SCRIPT = `
default:
  turns:
    - tools:
        - tool: bash
          input: { command: "touch made.txt" }
        - tool: session-status
          input: {}
    - text: ["after: {{tool.content}}"]
      tools:
        - tool: session-status
          input: {}
      answer: "{{tool.content}}"
`;

  test('a denied call runs nothing and writes no frame; the model reads the reason; a runtime tool passes the same point', async () => {
    const { d, watcher } = await door(manifest({ hooks: POLICY }), SCRIPT);
    const task = taskOf(await send(d.url, 'go'));
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(task));
    // The third call (session-status, call_3) was denied by a hook that failed: a policy that cannot decide does not allow.
    assert.equal(answerText(task), "tool call denied by the on_tool_call hook 'no-status-twice': the hook exited 1");
    assert.equal(existsSync(path.join(d.recordsDir, 'work', 'made.txt')), false, 'the denied command never ran');
    const trace = readTrace(d.recordsDir);
    assert.deepEqual(
      trace.filter((r) => r.type === 'tool_call_denied').map((r) => [r.tool, r.tool_call_id, r.hook, r.reason]),
      [
        ['bash', 'call_1', 'no-bash', 'no bash today'],
        ['session-status', 'call_3', 'no-status-twice', 'the hook exited 1'],
      ],
    );
    assert.deepEqual(
      trace.filter((r) => r.type === 'tool_call').map((r) => r.tool_call_id),
      ['call_2'],
      'only the allowed call has a tool_call record',
    );
    const labels = (await taskEventLabels(watcher, task.id)).map(([label]) => label);
    assert.deepEqual(
      labels.filter((l) => l.startsWith('started:') || l.startsWith('artifact:')),
      ['started:session-status', 'artifact:session-status'],
      'a denied call has neither its tool-call-started nor its artifact frame',
    );
  });
});

describe('on_task_end: artifacts and reopens', () => {
  test('a hook artifact goes out as an artifact frame before the completed status', async () => {
    const hooks = [
      'on_task_end:',
      '  - name: reviewer',
      `    command: "echo '{\\"artifact\\": {\\"reviewed\\": true}}'"`,
      '  - name: silent',
      '    command: "true"',
    ];
    const { d, watcher } = await door(manifest({ hooks, shell: false }), 'default:\n  turns:\n    - answer: done\n');
    const task = taskOf(await send(d.url, 'go'));
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    const events = await taskEventLabels(watcher, task.id);
    assert.deepEqual(
      events.map(([label]) => label),
      ['SUBMITTED', 'WORKING:inference turn 1', 'artifact:reviewer', 'text', 'update:response', 'COMPLETED:task completed'],
    );
    const hookFrame = watcher.events.find((e) => taskIdOf(e) === task.id && frameOf(e)?.frame === 'artifact');
    assert.deepEqual(frameOf(hookFrame!).artifact, {
      toolName: 'reviewer',
      content: '{"reviewed":true}',
      fenceSource: null,
      toolCallId: null,
      isError: false,
      durationMs: null,
      exitCode: null,
      truncated: false,
    });
    assert.deepEqual(
      readTrace(d.recordsDir)
        .filter((r) => r.type === 'hook_artifact')
        .map((r) => [r.hook, r.content]),
      [['reviewer', '{"reviewed":true}']],
    );
  });

  test('a reopen: the task stays WORKING, the new attempt streams from inference turn 1 with ids from 0, turns count across', async () => {
    const hooks = ['on_task_end:', '  - name: reviewer', `    command: "if grep -q '\\"attempt\\":1,'; then echo '{\\"reopen\\": \\"Look again.\\"}'; fi"`];
    const { d, watcher } = await door(
      manifest({ hooks, reopens: 1, shell: false }),
      'default:\n  turns:\n    - answer: first\n    - answer: "second saw <{{continuation}}>"\n',
    );
    const task = taskOf(await send(d.url, 'go'));
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(task));
    assert.equal(answerText(task), 'second saw <Look again.>');
    assert.deepEqual(await taskEventLabels(watcher, task.id), [
      ['SUBMITTED', null],
      ['WORKING:inference turn 1', '0'],
      ['WORKING:reopened by reviewer: attempt 2', '1'],
      ['WORKING:inference turn 1', '0'],
      ['text', '1'],
      ['update:response', '1'],
      ['COMPLETED:task completed', '2'],
    ]);
    const trace = readTrace(d.recordsDir);
    assert.deepEqual(
      trace.filter((r) => r.type === 'task_reopened').map((r) => [r.hook, r.attempt]),
      [['reviewer', 2]],
    );
    assert.deepEqual(
      trace.filter((r) => r.type === 'inference').map((r) => r.turn),
      [1, 2],
      'turns count across the reopen',
    );
  });

  test('a failed attempt may be reopened too; past lifecycle.max_task_reopens a reopen is not honored', async () => {
    const hooks = ['on_task_end:', '  - name: stubborn', `    command: "echo '{\\"reopen\\": \\"Again.\\"}'"`];
    const { d } = await door(manifest({ hooks, reopens: 2, shell: false }), 'default:\n  turns:\n    - fail: nope\n    - fail: still no\n    - fail: never\n');
    const task = taskOf(await send(d.url, 'go'));
    assert.equal(task.status.state, 'TASK_STATE_FAILED');
    assert.equal(task.status.message.parts[0].text, 'never');
    const trace = readTrace(d.recordsDir);
    assert.equal(trace.filter((r) => r.type === 'task_reopened').length, 2);
    assert.deepEqual(
      trace.filter((r) => r.type === 'hook_failed').map((r) => r.reason),
      ['a reopen past lifecycle.max_task_reopens (2) is not honored'],
    );
  });

  test('a hook that answers off its form has no say', async () => {
    const hooks = ['on_task_end:', '  - name: chatty', '    command: "echo hello"', '  - name: broken', '    command: "exit 4"'];
    const { d } = await door(manifest({ hooks, shell: false }), 'default:\n  turns:\n    - answer: fine\n');
    assert.equal(answerText(taskOf(await send(d.url, 'go'))), 'fine');
    assert.deepEqual(
      readTrace(d.recordsDir)
        .filter((r) => r.type === 'hook_failed')
        .map((r) => [r.hook, r.reason]),
      [
        ['chatty', 'its output is not a JSON object with artifact and/or reopen (a non-blank text)'],
        ['broken', 'the hook exited 4'],
      ],
    );
  });
});
