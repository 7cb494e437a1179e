/**
 * submit-plan on real doors with the script driver (docs/plans.md): shell steps in order with a reference to an
 * earlier step's output, a capsule step to another real door and the egress refusal, each tool a step may not call,
 * a failing step stopping the plan, a step an on_tool_call hook denies, a cancel mid-plan (a background command left
 * as residue), and the plan guidance in the system prompt exactly when the tool exists.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { resultOf, taskOf } from './support/assertions.js';
import { type DoorProcess, makeCapsule, runDoor } from './support/door-process.js';
import { send, waitFor } from './support/rpc.js';
import { frameOf, kindOf, type SseReader, taskIdOf, watchSession } from './support/sse.js';
import { cancelTask, readTrace, type TraceRecord } from './support/tasks.js';

const GUIDANCE =
  'You can run several tool calls as one plan with submit-plan: use it when you already know the calls and their order and a later call needs only an earlier call’s output, not your judgement. The runtime runs the steps one at a time, in order, and returns every step’s result at once; a failed step stops the plan. A step names an earlier step’s output as {{steps.<id>.output}}. Call a tool on its own when you need to read its result before deciding what comes next.';

function manifest(opts: { plan?: boolean; allow?: string[]; extra?: string[]; name?: string } = {}): string {
  return [
    `name: ${opts.name ?? 'planner'}`,
    'version: 0.1.0',
    'lifecycle:',
    '  task_acceptance: queue',
    'inference:',
    '  driver: script',
    '  script: script.yaml',
    '  max_turns: 10',
    'capabilities:',
    '  shell:',
    '    allow: [bash]',
    ...(opts.plan === false ? [] : ['  plan:', '    submit: true']),
    ...(opts.allow ? ['  network:', `    allow: [${opts.allow.map((a) => JSON.stringify(a)).join(', ')}]`] : []),
    ...(opts.extra ?? []),
    '',
  ].join('\n');
}

/** A script whose every task calls submit-plan with `steps` (JSON) and answers with the result as the model read it. */
function planScript(rules: Record<string, unknown[]>): string {
  const entries = Object.entries(rules).map(
    ([match, steps]) =>
      `  - match: '^${match}$'\n    turns:\n      - tools:\n          - tool: submit-plan\n            input: ${JSON.stringify({ steps })}\n        answer: "{{tool.content}}"`,
  );
  return `rules:${entries.length === 0 ? ' []' : `\n${entries.join('\n')}`}\ndefault:\n  turns:\n    - answer: "{{system}}\\n---\\n{{inventory}}"\n`;
}

const doors: DoorProcess[] = [];
const watchers: SseReader[] = [];
after(async () => {
  for (const w of watchers) w.abort();
  await Promise.all(doors.map((d) => d.stop()));
});
async function door(text: string, script: string): Promise<DoorProcess> {
  const d = await runDoor(makeCapsule(text, script));
  doors.push(d);
  return d;
}
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON shapes
const answerText = (task: any): string => task.artifacts?.find((a: any) => a.artifactId === 'response')?.parts?.[0]?.text ?? '';
const recordsOf = (d: DoorProcess, taskId: string, ...types: string[]): TraceRecord[] =>
  readTrace(d.recordsDir).filter((r) => r.task_id === taskId && types.includes(r.type));

describe('a plan of shell steps', () => {
  const SCRIPT = planScript({
    three: [
      { id: 'first', tool: 'bash', input: { command: 'echo alpha; echo warn >&2' } },
      { id: 'second', tool: 'bash', input: { command: 'echo beta > second.txt' } },
      { id: 'third', tool: 'bash', input: { command: 'echo "third read:" {{steps.first.output}} "($(cat second.txt))"' } },
    ],
    failing: [
      { id: 'one', tool: 'bash', input: { command: 'echo one' } },
      { id: 'two', tool: 'bash', input: { command: 'echo broken >&2; exit 3' } },
      { id: 'three', tool: 'bash', input: { command: 'touch never.txt' } },
    ],
    quoted: [
      { id: 'evil', tool: 'bash', input: { command: "echo '$(touch pwned.txt)'" } },
      { id: 'echo', tool: 'bash', input: { command: 'echo {{steps.evil.output}}' } },
    ],
    hooked: [
      { id: 'a', tool: 'bash', input: { command: 'echo allowed' } },
      { id: 'b', tool: 'bash', input: { command: 'touch forbidden.txt' } },
      { id: 'c', tool: 'bash', input: { command: 'touch after.txt' } },
    ],
  });
  // Decides the steps' calls (tool bash), not the submit-plan call that carries them all.
  const HOOKS = [
    'hooks:',
    '  on_tool_call:',
    '    - name: no-forbidden',
    `      command: "if grep -Eq 'turn.:[0-9]+,.tool.:.bash.*forbidden'; then echo 'not that file'; exit 2; fi"`,
  ];
  let d: DoorProcess;
  let watcher: SseReader;

  test('three steps run in order; the third reads the first’s output; the plan is one tool call', async () => {
    d = await door(manifest({ extra: HOOKS }), SCRIPT);
    watcher = await watchSession(d.url);
    watchers.push(watcher);
    const task = taskOf(await send(d.url, 'three'));
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(task));
    const lines = answerText(task).split('\n');
    assert.match(lines[0]!, /^\[submit-plan\] step 1 of 3, "first" \(bash\): passed in \d+ ms$/);
    assert.equal(lines[1], '<untrusted-content source=tool:bash>');
    assert.equal(lines[2], '$ echo alpha; echo warn >&2');
    const third = answerText(task).split('[submit-plan] step 3 of 3')[1]!;
    assert.match(
      third,
      /^, "third" \(bash\): passed in \d+ ms\n<untrusted-content source=tool:bash>\n\$ echo "third read:" alpha "\(\$\(cat second.txt\)\)"\nExit code: 0\nStdout:\nthird read: alpha \(beta\)\n/,
    );
    assert.match(lines.at(-1)!, /^\[submit-plan\] The plan ran all 3 steps: 3 passed, in \d+ ms\.$/);

    const steps = recordsOf(d, task.id, 'plan_start', 'plan_step', 'plan_end');
    assert.deepEqual(
      steps.map((r) => [r.type, r.step ?? null, r.type === 'plan_start' ? null : r.status]),
      [
        ['plan_start', null, null],
        ['plan_step', 'first', 'passed'],
        ['plan_step', 'second', 'passed'],
        ['plan_step', 'third', 'passed'],
        ['plan_end', null, 'completed'],
      ],
    );
    assert.deepEqual(steps[0]!.steps, [
      { id: 'first', tool: 'bash' },
      { id: 'second', tool: 'bash' },
      { id: 'third', tool: 'bash' },
    ]);
    assert.deepEqual(steps[3]!.input, { command: 'echo "third read:" alpha "($(cat second.txt))"' });
    assert.equal(steps[3]!.exit_code, 0);
    assert.deepEqual([steps[4]!.passed, steps[4]!.failed, steps[4]!.skipped], [3, 0, 0]);
    const calls = recordsOf(d, task.id, 'tool_call');
    assert.deepEqual(
      calls.map((r) => [r.tool, r.tool_call_id, r.status]),
      [['submit-plan', 'call_1', 'passed']],
      'the plan is one tool call; its steps are plan_step records',
    );
    await watcher.waitForEvent(
      (e) => taskIdOf(e) === task.id && kindOf(e) === 'status' && /COMPLETED/.test(e.data.result.statusUpdate.status.state),
      'the end',
    );
    const frames = watcher.events
      .filter((e) => taskIdOf(e) === task.id)
      .map((e) => frameOf(e))
      .filter((f) => f && (f.frame === 'tool-call-started' || f.frame === 'artifact'));
    assert.deepEqual(
      frames.map((f) => `${f.frame}:${f.toolName ?? f.artifact.toolName}`),
      ['tool-call-started:submit-plan', 'artifact:submit-plan'],
    );
  });

  test('a failing step stops the plan: the rest are skipped, never run, and the call is a tool error', async () => {
    const task = taskOf(await send(d.url, 'failing'));
    const text = answerText(task);
    assert.match(
      text,
      /\[submit-plan\] step 2 of 3, "two" \(bash\): failed in \d+ ms\n<untrusted-content source=tool:bash>\n\$ echo broken >&2; exit 3\nExit code: 3\n/,
    );
    assert.match(
      text,
      /\n\[submit-plan\] step 3 of 3, "three" \(bash\): skipped: step "two" failed\n\[submit-plan\] The plan stopped at step 2 of 3: 1 passed, 1 failed, 1 skipped, in \d+ ms\.$/,
    );
    assert.equal(existsSync(path.join(d.recordsDir, 'work', 'never.txt')), false);
    assert.deepEqual(
      recordsOf(d, task.id, 'plan_step').map((r) => [r.step, r.status, r.exit_code]),
      [
        ['one', 'passed', 0],
        ['two', 'failed', 3],
        ['three', 'skipped', null],
      ],
    );
    const [end] = recordsOf(d, task.id, 'plan_end');
    assert.deepEqual([end!.status, end!.passed, end!.failed, end!.skipped], ['stopped', 1, 1, 1]);
    assert.equal(recordsOf(d, task.id, 'tool_call')[0]!.status, 'error');
  });

  test('an output put into a command is one shell word: it is printed, never run', async () => {
    const task = taskOf(await send(d.url, 'quoted'));
    assert.match(answerText(task), /\$ echo '\$\(touch pwned.txt\)'\nExit code: 0\nStdout:\n\$\(touch pwned.txt\)\n/);
    assert.equal(existsSync(path.join(d.recordsDir, 'work', 'pwned.txt')), false);
  });

  test('every step passes the on_tool_call hooks: a denied step runs nothing and stops the plan', async () => {
    const task = taskOf(await send(d.url, 'hooked'));
    assert.match(
      answerText(task),
      /\n\[submit-plan\] step 2 of 3, "b" \(bash\): denied in \d+ ms: tool call denied by the on_tool_call hook 'no-forbidden': not that file\n\[submit-plan\] step 3 of 3, "c" \(bash\): skipped: step "b" denied\n/,
    );
    assert.equal(existsSync(path.join(d.recordsDir, 'work', 'forbidden.txt')), false);
    assert.equal(existsSync(path.join(d.recordsDir, 'work', 'after.txt')), false);
    assert.deepEqual(
      recordsOf(d, task.id, 'tool_call_denied').map((r) => [r.tool, r.tool_call_id, r.hook]),
      [['bash', 'call_1.b', 'no-forbidden']],
    );
    assert.deepEqual(
      recordsOf(d, task.id, 'plan_step').map((r) => r.status),
      ['passed', 'denied', 'skipped'],
    );
  });
});

describe('refused before anything runs', () => {
  const touch = { id: 'first', tool: 'bash', input: { command: 'touch ran.txt' } };
  const rule = (tool: string) => [touch, { id: 'then', tool, input: {} }];
  const SCRIPT = planScript({
    switch: rule('switch-driver'),
    pull: rule('pull-artifact'),
    remove: rule('remove-artifact'),
    end: rule('end-without-answer'),
    nested: rule('submit-plan'),
    curl: rule('curl'),
    later: [touch, { id: 'early', tool: 'bash', input: { command: 'echo {{steps.late.output}}' } }, { id: 'late', tool: 'bash', input: { command: 'true' } }],
    both: [touch, { id: 'x', tool: 'bash', capsule: 'http://localhost:1' }],
    many: Array.from({ length: 21 }, (_, i) => ({ id: `s${i}`, tool: 'bash', input: { command: 'true' } })),
  });
  const REFUSALS: [string, string][] = [
    [
      'switch',
      `step "then": 'switch-driver' is not callable from a plan step: switch-driver, pull-artifact, remove-artifact and end-without-answer are called only on their own, never from a plan`,
    ],
    [
      'pull',
      `step "then": 'pull-artifact' is not callable from a plan step: switch-driver, pull-artifact, remove-artifact and end-without-answer are called only on their own, never from a plan`,
    ],
    [
      'remove',
      `step "then": 'remove-artifact' is not callable from a plan step: switch-driver, pull-artifact, remove-artifact and end-without-answer are called only on their own, never from a plan`,
    ],
    [
      'end',
      `step "then": 'end-without-answer' is not callable from a plan step: switch-driver, pull-artifact, remove-artifact and end-without-answer are called only on their own, never from a plan`,
    ],
    ['nested', `step "then": 'submit-plan' is not callable from a plan step: a plan does not submit another plan`],
    ['curl', `step "then": tool 'curl' is not declared in manifest allowlist`],
    ['later', 'step "early": {{steps.late.output}} names no earlier step'],
    ['both', 'step "x": a step has exactly one of tool (a tool call of this session) and capsule (a task for another door)'],
    ['many', 'a plan has at most 20 steps; this one has 21'],
  ];

  test('each refusal names the step, the tool and the rule; nothing ran and no plan record was written', async () => {
    // switch-driver exists in this capsule: the rule, not a missing grant, refuses it.
    const d = await door(manifest({ extra: ['control:', '  agent_settings: [inference.driver]'] }), SCRIPT);
    for (const [text, refusal] of REFUSALS) {
      const task = taskOf(await send(d.url, text));
      assert.equal(answerText(task), `<untrusted-content source=tool:submit-plan>\n${refusal}\n</untrusted-content>`, text);
      assert.deepEqual(recordsOf(d, task.id, 'plan_start', 'plan_step', 'plan_end'), [], text);
      assert.deepEqual(
        recordsOf(d, task.id, 'tool_call').map((r) => r.status),
        ['error'],
      );
    }
    assert.equal(existsSync(path.join(d.recordsDir, 'work', 'ran.txt')), false, 'no step of a refused plan ran');
  });
});

describe('a capsule step', () => {
  test('sends its task to another real door as a peer and reads its answer; a door that takes no peer tasks, and an unlisted door, are refused', async () => {
    const answererManifest = (name: string, accept: boolean) =>
      [
        `name: ${name}`,
        'version: 0.1.0',
        'inference:',
        '  driver: script',
        '  script: script.yaml',
        'exports:',
        '  peer_tasks:',
        `    accept: ${accept}`,
        '',
      ].join('\n');
    const answers = 'default:\n  turns:\n    - answer: "answerer heard: {{task.text}}"\n';
    const [other, closed] = await Promise.all([door(answererManifest('answerer', true), answers), door(answererManifest('closed', false), answers)]);
    const port = new URL(other.url).port;
    const url = other.url.replace(/\/$/, '');
    const script = planScript({
      relay: [
        { id: 'word', tool: 'bash', input: { command: 'echo hello' } },
        { id: 'ask', capsule: url, task: 'relay {{steps.word.output}}' },
        { id: 'show', tool: 'bash', input: { args: ['-c', 'echo "got: $1"', 'show', '{{steps.ask.output}}'] } },
      ],
      closed: [{ id: 'ask', capsule: closed.url, task: 'hello' }],
      elsewhere: [{ id: 'ask', capsule: url.replace(port, String(Number(port) + 1)), task: 'hello' }],
    });
    const d = await door(manifest({ allow: [`localhost:${port}`, `127.0.0.1:${new URL(closed.url).port}`] }), script);
    const task = taskOf(await send(d.url, 'relay'));
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(task));
    const text = answerText(task);
    assert.match(
      text,
      /\[submit-plan\] step 2 of 3, "ask" \(capsule-step\): passed in \d+ ms\n<untrusted-content source=capsule:ask>\nanswerer heard: relay hello\n<\/untrusted-content>\n/,
    );
    assert.match(text, /Stdout:\ngot: answerer heard: relay hello\n/);
    const [step] = recordsOf(d, task.id, 'plan_step').filter((r) => r.step === 'ask');
    assert.deepEqual(step!.input, { capsule: url, task: 'relay hello' });
    const theirs = readTrace(other.recordsDir).find((r) => r.type === 'task_start' && r.task_id === step!.door_task_id);
    assert.ok(theirs, 'the door_task_id is the other door’s task');
    assert.equal(theirs.text, 'relay hello');
    // Telemetry is off here: the step sent no trace context, so the other door's task continues none.
    assert.equal(theirs.traceparent, undefined);

    // The request is stamped x-murmur-task-origin: peer, so a door that does not accept peer tasks refuses it.
    const refusedByDoor = taskOf(await send(d.url, 'closed'));
    assert.match(
      answerText(refusedByDoor),
      /^\[submit-plan\] step 1 of 1, "ask" \(capsule-step\): failed in \d+ ms\n<untrusted-content source=capsule:ask>\nthe door does not accept tasks from peer capsules \(exports.peer_tasks.accept\)\n<\/untrusted-content>\n\[submit-plan\] The plan stopped at step 1 of 1: 1 failed, in \d+ ms\.$/,
    );
    assert.equal(readTrace(closed.recordsDir).filter((r) => r.type === 'task_start').length, 0);

    const refused = taskOf(await send(d.url, 'elsewhere'));
    assert.equal(
      answerText(refused),
      `<untrusted-content source=tool:submit-plan>\nstep "ask": capabilities.network.allow does not list this step's door (127.0.0.1:${Number(port) + 1}), so the plan may not send it a task\n</untrusted-content>`,
    );
  });
});

describe('cancel mid-plan', () => {
  test('ends the plan at once; an earlier step’s background command stays as residue', async () => {
    const script = planScript({
      long: [
        { id: 'bg', tool: 'bash', input: { command: 'sleep 60' } },
        { id: 'slow', tool: 'bash', input: { command: 'sleep 60' } },
        { id: 'never', tool: 'bash', input: { command: 'touch never.txt' } },
      ],
    });
    const d = await door(manifest({}).replace('  task_acceptance: queue', '  task_acceptance: queue\n  shell_grace_secs: 3'), script);
    const live = taskOf(await send(d.url, 'long', {}, { returnImmediately: true }));
    await waitFor(async () => recordsOf(d, live.id, 'plan_step').find((r) => r.step === 'bg'), 'the first step to move to the background');
    // The second step runs now, and would move to the background only after 3 s.
    await new Promise((r) => setTimeout(r, 500));
    const before = Date.now();
    const canceled = resultOf(await cancelTask(d.url, live.id));
    assert.equal(canceled.status.state, 'TASK_STATE_CANCELED');
    assert.ok(Date.now() - before < 3000, `the cancel took ${Date.now() - before} ms`);
    await waitFor(async () => recordsOf(d, live.id, 'plan_end')[0], 'plan_end');
    assert.deepEqual(
      recordsOf(d, live.id, 'plan_step', 'plan_end').map((r) => [r.type, r.step ?? null, r.status]),
      [
        ['plan_step', 'bg', 'background'],
        ['plan_step', 'slow', 'canceled'],
        ['plan_step', 'never', 'skipped'],
        ['plan_end', null, 'canceled'],
      ],
    );
    const [running] = canceled.metadata.murmur.runningCommands;
    assert.equal(running.command, 'sleep 60', 'the background step runs on as residue');
    assert.equal(existsSync(path.join(d.recordsDir, 'work', 'never.txt')), false);
  });
});

describe('the plan guidance', () => {
  test('is part of the system prompt exactly when the tool exists; without the grant a call is refused naming it', async () => {
    const script = planScript({ one: [{ id: 'a', tool: 'bash', input: { command: 'true' } }] });
    const [withTool, without] = await Promise.all([
      door(manifest({ name: 'with-plan' }), script),
      door(manifest({ plan: false, name: 'without-plan' }), script),
    ]);
    const [system, inventory] = answerText(taskOf(await send(withTool.url, 'hi'))).split('\n---\n');
    assert.ok(system!.split('\n').includes(GUIDANCE), system);
    assert.equal(inventory, 'bash, submit-plan, session-status');
    const [systemWithout, inventoryWithout] = answerText(taskOf(await send(without.url, 'hi'))).split('\n---\n');
    assert.ok(!systemWithout!.includes('submit-plan'), systemWithout);
    assert.equal(inventoryWithout, 'bash, session-status');
    assert.deepEqual(readTrace(without.recordsDir).find((r) => r.type === 'session_start')!.tools_declared, ['bash', 'session-status']);
    assert.equal(
      answerText(taskOf(await send(without.url, 'one'))),
      "tool 'submit-plan' does not exist in this capsule: it is provided only when the manifest declares capabilities.plan.submit",
    );
  });
});
