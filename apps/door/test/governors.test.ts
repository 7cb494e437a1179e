/**
 * The governors of a task's answer and its spend (docs/agent-loop.md, "Governors"), on real doors with the script
 * driver, whose `usage:` makes every token count exact: keep_working's messages, done_check's runs (sent back,
 * exhausted, timed out, in the sandbox), the session's spend ceiling stopping at the exact call, and the machine's
 * day total shared by concurrent sessions and kept across a kill -9.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { taskOf } from './support/assertions.js';
import { type DoorProcess, makeCapsule, runDoor, tempDir } from './support/door-process.js';
import { send } from './support/rpc.js';
import { readTrace } from './support/tasks.js';

const doors: DoorProcess[] = [];
after(() => Promise.all(doors.map((d) => d.stop('SIGKILL'))));

function manifest(extra: { lifecycle?: string[]; inference?: string[]; top?: string[]; maxTurns?: number; name?: string }): string {
  return [
    `name: ${extra.name ?? 'governed'}`,
    'version: 0.1.0',
    'lifecycle:',
    '  task_acceptance: queue',
    ...(extra.lifecycle ?? []).map((l) => `  ${l}`),
    'inference:',
    '  driver: script',
    '  script: script.yaml',
    `  max_turns: ${extra.maxTurns ?? 10}`,
    ...(extra.inference ?? []).map((l) => `  ${l}`),
    'capabilities:',
    '  shell:',
    '    allow: [bash]',
    ...(extra.top ?? []),
    '',
  ].join('\n');
}

async function door(manifestText: string, script: string, home?: string): Promise<DoorProcess> {
  const d = await runDoor(makeCapsule(manifestText, script), [], home);
  doors.push(d);
  return d;
}

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON shapes
const statusText = (task: any): string => task.status.message?.parts?.[0]?.text ?? '';
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON shapes
const answerText = (task: any): string => task.artifacts?.[0]?.parts?.[0]?.text ?? '';
const ofType = (d: DoorProcess, type: string) => readTrace(d.recordsDir).filter((r) => r.type === type);

describe('keep_working', () => {
  const SCRIPT = `
default:
  turns:
    - answer: first
    - tools:
        - tool: session-status
          input: {}
      answer: "second saw <{{continuation}}> {{tool.stdout}}"
    - answer: third
    - answer: fourth
`;

  test('an answer with messages left goes on with the message, counted; the answer after the last message completes the task', async () => {
    const d = await door(manifest({ lifecycle: ['keep_working:', '  limit: 2', '  message: "Not yet: look again."'] }), SCRIPT);
    const task = taskOf(await send(d.url, 'go'));
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(task));
    assert.equal(answerText(task), 'third');
    const kept = ofType(d, 'keep_working');
    assert.deepEqual(
      kept.map((r) => [r.used, r.left]),
      [
        [1, 1],
        [2, 0],
      ],
    );
    // The model read the operator's message exactly, and session-status counted it while the task ran.
    const statusRecord = ofType(d, 'session_status')[0].status as Record<string, unknown>;
    assert.deepEqual(statusRecord.keep_working, { used: 1, left: 1 });
    assert.deepEqual(statusRecord.done_check, 'none');
    const inference = ofType(d, 'inference');
    // first, then session-status's call and the answer that read it, then third: four calls against max_turns.
    assert.equal(inference.length, 4);
    const second = ofType(d, 'tool_call').find((r) => r.tool === 'session-status');
    assert.ok(second);
    const turnsUsed = (statusRecord.turns as { used: number }).used;
    assert.equal(turnsUsed, 2, 'the keep-working round counts against inference.max_turns');
  });

  test('the default message, and no message on the last allowed turn: the answer stands', async () => {
    const d = await door(
      manifest({ lifecycle: ['keep_working:', '  limit: 5'], maxTurns: 2 }),
      'default:\n  turns:\n    - answer: one\n    - answer: "two saw <{{continuation}}>"\n',
    );
    const task = taskOf(await send(d.url, 'go'));
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(task));
    assert.equal(
      answerText(task),
      'two saw <You ended your turn, but this task asks you to keep working: check that everything it asks for is done, do what is left, and then give your final answer again.>',
    );
    assert.equal(ofType(d, 'keep_working').length, 1, 'turn 2 was the last allowed: no second message');
  });

  test('counts start again at 0 with each task', async () => {
    const d = await door(manifest({ lifecycle: ['keep_working:', '  limit: 1'] }), 'default:\n  turns:\n    - answer: a\n    - answer: b\n');
    for (const _ of [1, 2]) assert.equal(answerText(taskOf(await send(d.url, 'go'))), 'b');
    assert.deepEqual(
      ofType(d, 'keep_working').map((r) => r.used),
      [1, 1],
    );
  });
});

describe('done_check', () => {
  test('a failing check sends the task back with its output; the answer after a passing check completes it', async () => {
    const script = `
default:
  turns:
    - answer: early
    - tools:
        - tool: bash
          input: { command: "echo ready > done.txt" }
      answer: "fixed after <{{continuation}}>"
`;
    const d = await door(manifest({ lifecycle: ['done_check:', '  command: "cat done.txt && echo checked >&2"', '  limit: 2'] }), script);
    const task = taskOf(await send(d.url, 'go'));
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(task));
    const answer = answerText(task);
    assert.match(
      answer,
      /^fixed after <\[done-check\] The task is not done yet: the check exited 1\. Its output:\n<untrusted-content source=done-check>\nStdout:\n\nStderr:\ncat: done\.txt: No such file or directory\n/,
    );
    assert.match(
      answer,
      /\n<\/untrusted-content>\n\[done-check\] Fix what it reports, then give your final answer again \(1 more failing check may send you back\)\.>$/,
    );
    const checks = ofType(d, 'done_check');
    assert.deepEqual(
      checks.map((r) => [r.outcome, r.exit_code, r.used, r.left, r.timed_out]),
      [
        ['sent_back', 1, 1, 1, false],
        ['passed', 0, 1, 1, false],
      ],
    );
    // The check ran in the workdir, where the tool wrote the file.
    assert.equal(readFileSync(path.join(d.recordsDir, 'work', 'done.txt'), 'utf8'), 'ready\n');
  });

  test('a check that keeps failing fails the task once the rounds are used', async () => {
    const d = await door(
      manifest({ lifecycle: ['done_check:', '  command: "exit 3"', '  limit: 1'] }),
      'default:\n  turns:\n    - answer: a\n    - answer: b\n    - answer: c\n',
    );
    const task = taskOf(await send(d.url, 'go'));
    assert.equal(task.status.state, 'TASK_STATE_FAILED');
    assert.equal(statusText(task), 'done_check failed: its command exited 3 and the task used all 1 round it allows');
    assert.deepEqual(
      ofType(d, 'done_check').map((r) => r.outcome),
      ['sent_back', 'exhausted'],
    );
  });

  test('on the last allowed turn a failing check fails the task, naming the turns', async () => {
    const d = await door(manifest({ lifecycle: ['done_check:', '  command: "false"', '  limit: 3'], maxTurns: 1 }), 'default:\n  turns:\n    - answer: a\n');
    const task = taskOf(await send(d.url, 'go'));
    assert.equal(statusText(task), 'done_check failed: its command exited 1 and the task has no inference turn left (inference.max_turns is 1)');
  });

  test('a check past its timeout is stopped and counts as failing', async () => {
    const d = await door(
      manifest({ lifecycle: ['done_check:', '  command: "sleep 30"', '  limit: 1', '  timeout_secs: 1'] }),
      'default:\n  turns:\n    - answer: a\n    - answer: "b <{{continuation}}>"\n    - answer: c\n',
    );
    const started = Date.now();
    const task = taskOf(await send(d.url, 'go'));
    assert.ok(Date.now() - started < 10_000, 'both checks ended by their timeout');
    assert.equal(statusText(task), 'done_check failed: its command did not finish within 1s and was stopped and the task used all 1 round it allows');
    assert.deepEqual(
      ofType(d, 'done_check').map((r) => [r.timed_out, r.exit_code]),
      [
        [true, null],
        [true, null],
      ],
    );
  });

  test('the check runs in the sandbox: its workdir is there, the session’s trace is not', async () => {
    const home = tempDir('check-home');
    const text = manifest({
      lifecycle: ['done_check:', '  command: "test -z \\"$(find \\"$CHECK_HOME\\" -name trace.jsonl 2>/dev/null)\\""', '  limit: 1'],
    }).replace('    allow: [bash]', '    allow: [bash]\n    env: [CHECK_HOME]');
    const d = await runDoor(makeCapsule(text, 'default:\n  turns:\n    - answer: a\n    - answer: b\n'), [], home, { env: { CHECK_HOME: home } });
    doors.push(d);
    const task = taskOf(await send(d.url, 'go'));
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(task));
    assert.deepEqual(
      ofType(d, 'done_check').map((r) => r.outcome),
      ['passed'],
    );
  });
});

describe('spend ceilings', () => {
  const SPENDING = `
default:
  turns:
    - usage: { input: 1000, output: 100 }
      text: [one]
    - usage: { input: 1000, output: 100 }
      tools:
        - tool: session-status
          input: {}
    - usage: { input: 1000, output: 100 }
      answer: never
`;

  test('inference.max_session_tokens: the call that would pass it is not made, the task fails with the refusal', async () => {
    const d = await door(manifest({ inference: ['max_session_tokens: 2900'] }), SPENDING);
    const task = taskOf(await send(d.url, 'go'));
    assert.equal(task.status.state, 'TASK_STATE_FAILED');
    assert.match(
      statusText(task),
      /^spend ceiling reached: inference\.max_session_tokens is 2900 and this session has spent 2200 tokens; the next inference call would need about \d+ more$/,
    );
    assert.equal(ofType(d, 'inference').length, 2, 'the third call was not made');
    const [refused] = ofType(d, 'spend_refused');
    assert.equal(refused.ceiling, 'session');
    assert.equal(refused.turn, 3);
    assert.equal(refused.spent, 2200);
    assert.ok((refused.projected as number) > 700 && (refused.projected as number) < 5000, `projected ${refused.projected}`);
    const status = ofType(d, 'session_status')[0].status as { spend: unknown };
    assert.deepEqual(status.spend, { tokens: 2200, ceiling: 2900, machine: 'none' });
  });

  test('spend.machine_tokens_per_day: one day total for two concurrent sessions, never passed', async () => {
    const home = tempDir('spend-home');
    const looping = `default:\n  turns:\n${'    - usage: { input: 100, output: 0 }\n      text: [x]\n'.repeat(30)}    - answer: never\n`;
    const m = (name: string) => manifest({ name, top: ['spend:', '  machine_tokens_per_day: 2000'], maxTurns: 40 });
    const [a, b] = await Promise.all([door(m('spender-a'), looping, home), door(m('spender-b'), looping, home)]);
    const [ta, tb] = await Promise.all([send(a.url, 'go'), send(b.url, 'go')]).then((answers) => answers.map(taskOf));
    for (const task of [ta, tb])
      assert.match(
        statusText(task),
        /^spend ceiling reached: spend\.machine_tokens_per_day is 2000 and this machine has spent \d+ tokens today \(UTC\); the next inference call would need about \d+ more$/,
      );
    const calls = ofType(a, 'inference').length + ofType(b, 'inference').length;
    const ledger = readFileSync(path.join(home, 'spend', `${new Date().toISOString().slice(0, 10)}.ledger`), 'utf8');
    const settled = ledger
      .split('\n')
      .filter((l) => l.startsWith('S '))
      .reduce((n, l) => n + Number(l.split(' ')[3]), 0);
    assert.equal(settled, calls * 100, 'every call settled what it reported');
    assert.ok(settled <= 2000, `the day total ${settled} stayed within the ceiling`);
    assert.ok(calls >= 15, `the two sessions shared the day: ${calls} calls`);
  });

  test('a session killed with a reservation held leaves it counted; another session reads the same day total', async () => {
    const home = tempDir('spend-home');
    const m = (name: string) => manifest({ name, top: ['spend:', '  machine_tokens_per_day: 100000'] });
    const sleeper = await door(
      m('sleeper'),
      'default:\n  turns:\n    - usage: { input: 500, output: 0 }\n      text: [x]\n    - sleep_ms: 60000\n      answer: late\n',
      home,
    );
    const sent = send(sleeper.url, 'go').catch(() => null);
    const ledgerFile = path.join(home, 'spend', `${new Date().toISOString().slice(0, 10)}.ledger`);
    const deadline = Date.now() + 10_000;
    const reservations = () =>
      readFileSync(ledgerFile, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('R ')).length;
    while (Date.now() < deadline) {
      try {
        if (reservations() >= 2) break;
      } catch {}
      await new Promise((r) => setTimeout(r, 50));
    }
    await sleeper.stop('SIGKILL');
    await sent;
    const lines = readFileSync(ledgerFile, 'utf8').trim().split('\n');
    assert.equal(lines.filter((l) => l.startsWith('R ')).length, 2);
    assert.equal(lines.filter((l) => l.startsWith('S ')).length, 1, 'the second call was never settled');
    const held = Number(lines.filter((l) => l.startsWith('R '))[1].split(' ')[3]);
    const reader = await door(
      m('reader'),
      'default:\n  turns:\n    - tools:\n        - tool: session-status\n          input: {}\n      answer: "{{tool.stdout}}"\n',
      home,
    );
    const status = JSON.parse(answerText(taskOf(await send(reader.url, 'status'))));
    assert.deepEqual(status.spend.machine, { tokens_today: 500 + held, ceiling: 100000 });
  });
});

describe('session-status of a capsule that sets every governor', () => {
  test('each field from its working feature: keep_working, done_check, context with its budget, spend with both ceilings', async () => {
    const home = tempDir('status-home');
    const text = `name: governed-all
version: 0.1.0
lifecycle:
  task_acceptance: queue
  keep_working:
    limit: 1
  done_check:
    command: "true"
    limit: 2
inference:
  driver: scripted
  max_turns: 9
  max_session_tokens: 100000
  choices:
    scripted:
      driver: script
      script: script.yaml
      context_window: 50000
spend:
  machine_tokens_per_day: 900000
`;
    const script = `default:
  turns:
    - usage: { input: 400, output: 20 }
      answer: first
    - usage: { input: 500, output: 30, cached: 100 }
      tools:
        - tool: session-status
          input: {}
      answer: "{{tool.stdout}}"
`;
    const d = await runDoor(makeCapsule(text, script), [], home);
    doors.push(d);
    const task = taskOf(await send(d.url, 'status'));
    const status = JSON.parse(answerText(task));
    assert.equal(status.time.deadline, 'none');
    assert.deepEqual(status.turns, { used: 2, cap: 9 });
    assert.deepEqual(status.keep_working, { used: 1, left: 0 });
    assert.deepEqual(status.done_check, { used: 0, left: 2 });
    assert.deepEqual(status.context, {
      used_tokens: 530,
      window_tokens: 50000,
      budget_tokens: 50000,
      budget_basis: 'context_window_less_output_cap',
      measured_by: 'actual',
    });
    assert.deepEqual(status.tokens, { input: 900, output: 50, cached: 100, cache_write: 'unknown', unreported_calls: 0 });
    assert.deepEqual(status.spend, { tokens: 950, ceiling: 100000, machine: { tokens_today: 950, ceiling: 900000 } });
  });
});
