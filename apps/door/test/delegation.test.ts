/**
 * delegate-task on real doors (seed 004; seed 000, "Completion errors", "Answers", "Residue items"): a sub-capsule
 * launched under the parent's records, its completion answered and delivered in the continuation, both murmur
 * errors end to end, the delegation residue of a cancel and of a stop, and an authenticated parent's delegation token.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { MurmurClient } from '@murmur/client';
import { runMur, until } from './support/client-cli.js';
import { type DoorProcess, runDoor, tempDir } from './support/door-process.js';

const PARENT = `
rules:
  - match: ^hold
    turns:
      - tools:
          - tool: delegate-task
            input: { capsule: worker, task: "sleepy" }
        answer: waiting
      - answer: "{{continuation}}"
default:
  turns:
    - tools:
        - tool: delegate-task
          input: { capsule: worker, task: "{{task.text}}" }
      answer: waiting
    - answer: "{{continuation}}"
`;

const WORKER = `
rules:
  - match: ^sleepy
    turns:
      - sleep_ms: 60000
        answer: late
default:
  turns:
    - answer: WORKER-ANSWER
`;

const manifest = (name: string, extra: string[] = []) =>
  [
    `name: ${name}`,
    'version: 0.2.0',
    'lifecycle:',
    '  task_acceptance: queue',
    'inference:',
    '  driver: script',
    '  script: script.yaml',
    '  max_turns: 6',
    ...extra,
    '',
  ].join('\n');

/** parent/ and worker/ side by side; the parent may delegate to ../worker. */
function capsules(parentExtra: string[] = []): string {
  const root = tempDir('delegation');
  for (const [name, script, extra] of [
    ['parent', PARENT, ['capabilities:', '  spawn:', '    allow: [../worker]', ...parentExtra]],
    ['worker', WORKER, []],
  ] as const) {
    mkdirSync(path.join(root, name));
    writeFileSync(path.join(root, name, 'murmur.yaml'), manifest(name, [...extra]));
    writeFileSync(path.join(root, name, 'script.yaml'), script);
  }
  return path.join(root, 'parent');
}

const traceOf = (dir: string) =>
  existsSync(path.join(dir, 'trace.jsonl'))
    ? readFileSync(path.join(dir, 'trace.jsonl'), 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>)
    : [];

interface RpcAnswer {
  result?: { message?: Record<string, unknown>; task?: Record<string, unknown> };
  error?: { code: number; message: string; data?: { reason: string; domain: string; metadata: Record<string, string> }[] };
}

async function completion(url: string, headers: Record<string, string>, token?: string): Promise<{ status: number; body: RpcAnswer }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'a2a-version': '1.0',
      'x-murmur-task-origin': 'completion',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'SendMessage',
      params: {
        message: {
          messageId: 'm1',
          role: 'ROLE_USER',
          parts: [
            {
              data: { delegation_id: headers['x-murmur-delegation-id'] ?? '', task_id: 'tsk_x', status: 'completed', output: 'POSTED-BY-TEST' },
              mediaType: 'application/json',
            },
          ],
        },
      },
    }),
  });
  return { status: res.status, body: (await res.json()) as RpcAnswer };
}

/** Waits until probe holds (until() takes undefined as "not yet"). */
const waitFor = (probe: () => boolean | Promise<boolean>, what: string, ms = 60_000) => until(async () => ((await probe()) ? true : undefined), what, ms);

const responseText = (task: { artifacts?: { artifactId: string; parts: { text?: string }[] }[] }) =>
  task.artifacts?.find((a) => a.artifactId === 'response')?.parts[0]?.text ?? '';

describe('delegate-task on a public parent door', () => {
  const home = tempDir('home');
  let parent: DoorProcess;
  let client: MurmurClient;
  before(async () => {
    parent = await runDoor(capsules(), [], home);
    client = new MurmurClient(parent.url);
  });
  after(() => parent?.stop());

  test('the child runs under children/<capsule>-<hex>, posts its completion, and the task continues with its outcome', async () => {
    const task = await client.sendText('count the files');
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    const text = responseText(task as never);
    assert.match(
      text,
      /^\[delegate-task\] delegation dlg_[0-9a-f]{32} to worker ended completed:\n<untrusted-content source=delegation:worker>\nWORKER-ANSWER\n<\/untrusted-content>/,
    );
    assert.match(text, /\[delegate-task\] Every delegation this task made has ended, and the outcomes are above\. Answer the task with them now\.$/);
    const trace = traceOf(parent.recordsDir);
    const start = trace.find((r) => r.type === 'delegation_start') as Record<string, string>;
    assert.ok(start, JSON.stringify(trace.map((r) => r.type)));
    const hex = start.delegation_id!.slice(4, 20);
    assert.equal(start.child_workdir, path.join(parent.recordsDir, 'children', `worker-${hex}`));
    const continued = trace.find((r) => r.type === 'task_continued');
    assert.equal(continued?.answers, 0);
    assert.equal(continued?.delegations, 1);
    // The child's own records hold its delivery.
    await waitFor(() => traceOf(start.child_workdir!).some((r) => r.type === 'delegation_completion'), 'the child delivery record');
    const delivery = traceOf(start.child_workdir!).find((r) => r.type === 'delegation_completion')!;
    assert.equal(delivery.delivered, true);
    assert.equal(delivery.delivery_error, null);
  });

  test('-31001: a completion addressed to another session, with its ErrorInfo', async () => {
    const { status, body } = await completion(parent.url, {
      'x-murmur-completion-session': 'ses_0123456789abcdef0123456789abcdef',
      'x-murmur-delegation-id': 'dlg_x',
    });
    assert.equal(status, 200);
    assert.equal(body.error?.code, -31001);
    assert.deepEqual(body.error?.data?.[0]?.metadata, { addressedSession: 'ses_0123456789abcdef0123456789abcdef' });
    assert.equal(body.error?.data?.[0]?.reason, 'COMPLETION_MISADDRESSED');
    assert.equal(body.error?.data?.[0]?.domain, 'murmur.nexus');
  });

  test('-31002: a completion for a delegation no task here awaits (unknown, or already delivered)', async () => {
    const unknown = await completion(parent.url, {
      'x-murmur-completion-session': parent.sessionId,
      'x-murmur-delegation-id': 'dlg_0123456789abcdef0123456789abcdef',
    });
    assert.equal(unknown.body.error?.code, -31002);
    assert.equal(unknown.body.error?.data?.[0]?.reason, 'COMPLETION_NOT_AWAITED');
    assert.deepEqual(unknown.body.error?.data?.[0]?.metadata, { delegationId: 'dlg_0123456789abcdef0123456789abcdef' });
    const delivered = traceOf(parent.recordsDir).find((r) => r.type === 'delegation_start') as Record<string, string>;
    const again = await completion(parent.url, { 'x-murmur-completion-session': parent.sessionId, 'x-murmur-delegation-id': delivered.delegation_id! });
    assert.equal(again.body.error?.code, -31002);
  });

  test('an awaited completion is answered as seed 000 shows, and its outcome reaches the continuation', async () => {
    const held = await client.sendText('hold on', { returnImmediately: true });
    let start: Record<string, string> | undefined;
    await waitFor(() => {
      start = traceOf(parent.recordsDir).find((r) => r.type === 'delegation_start' && r.task_id === held.id) as Record<string, string> | undefined;
      return start !== undefined;
    }, 'delegation_start');
    const dlg = start!.delegation_id!;
    const { body } = await completion(parent.url, { 'x-murmur-completion-session': parent.sessionId, 'x-murmur-delegation-id': dlg });
    assert.deepEqual(body.result, {
      message: {
        messageId: `msg_${dlg}_received`,
        contextId: held.contextId,
        role: 'ROLE_AGENT',
        parts: [{ data: { delegation_id: dlg, received: true }, mediaType: 'application/json' }],
      },
    });
    await waitFor(async () => (await client.getTask(held.id)).status.state === 'TASK_STATE_COMPLETED', 'the held task to complete');
    assert.match(responseText((await client.getTask(held.id)) as never), /ended completed:\n<untrusted-content source=delegation:worker>\nPOSTED-BY-TEST\n/);
  });

  test('CancelTask: the delegation is residue (seed 000 keys), the child ends, a late completion is -31002', async () => {
    const held = await client.sendText('hold again', { returnImmediately: true });
    let start: Record<string, string> | undefined;
    await waitFor(() => {
      start = traceOf(parent.recordsDir).find((r) => r.type === 'delegation_start' && r.task_id === held.id) as Record<string, string> | undefined;
      return start !== undefined;
    }, 'delegation_start');
    // mur ps lists the child under its parent, naming the delegation.
    const ps = JSON.parse((await runMur(['ps', '--json'], home)).stdout) as { sessionId: string; parent?: { sessionId: string; delegationId: string } }[];
    const childAt = ps.findIndex((r) => r.sessionId === start!.child_session_id);
    assert.ok(childAt > ps.findIndex((r) => r.sessionId === parent.sessionId), JSON.stringify(ps));
    assert.deepEqual(ps[childAt].parent, { sessionId: parent.sessionId, delegationId: start!.delegation_id });
    assert.match(
      (await runMur(['ps'], home)).stdout,
      new RegExp(`\\n└─ worker \\(delegation ${start!.delegation_id}\\)\\s+0\\.2\\.0 .*${start!.child_session_id}`),
    );
    const canceled = await client.cancelTask(held.id);
    assert.equal(canceled.status.state, 'TASK_STATE_CANCELED');
    const residue = canceled.artifacts?.find((a) => a.artifactId === 'residue')?.parts.map((p) => (p as { data?: unknown }).data);
    assert.deepEqual(residue, [
      {
        kind: 'delegation',
        delegation_id: start!.delegation_id,
        capsule: 'worker',
        version: '0.2.0',
        child_session_id: start!.child_session_id,
        child_workdir: start!.child_workdir,
      },
    ]);
    await waitFor(() => traceOf(start!.child_workdir!).some((r) => r.type === 'session_end'), 'the child session_end');
    const late = await completion(parent.url, { 'x-murmur-completion-session': parent.sessionId, 'x-murmur-delegation-id': start!.delegation_id! });
    assert.equal(late.body.error?.code, -31002);
    const stopped = (await client.stopSession()) as { residue: unknown[] };
    assert.deepEqual(stopped.residue, [], 'nothing of the canceled task runs on');
  });

  test('murmur.StopSession: the delegation of a task it cancels is residue (seed 000 keys), as CancelTask of that task lists it', async () => {
    const held = await client.sendText('hold once more', { returnImmediately: true });
    let start: Record<string, string> | undefined;
    await waitFor(() => {
      start = traceOf(parent.recordsDir).find((r) => r.type === 'delegation_start' && r.task_id === held.id) as Record<string, string> | undefined;
      return start !== undefined;
    }, 'delegation_start');
    const stopped = (await client.stopSession()) as { canceled: string[]; residue: unknown[] };
    assert.deepEqual(stopped.canceled, [held.id]);
    assert.deepEqual(stopped.residue, [
      {
        kind: 'delegation',
        delegation_id: start!.delegation_id,
        capsule: 'worker',
        version: '0.2.0',
        child_session_id: start!.child_session_id,
        child_workdir: start!.child_workdir,
      },
    ]);
    assert.equal((await client.getTask(held.id)).status.state, 'TASK_STATE_CANCELED');
    await waitFor(() => traceOf(start!.child_workdir!).some((r) => r.type === 'session_end'), 'the child session_end');
    const again = (await client.stopSession()) as { canceled: string[]; residue: unknown[] };
    assert.deepEqual([again.canceled, again.residue], [[], []], 'a second stop cancels nothing, and nothing of the task runs on');
  });
});

describe('delegate-task on an authenticated parent door', () => {
  const home = tempDir('home');
  let parent: DoorProcess;
  before(async () => {
    const dir = capsules();
    const yaml = readFileSync(path.join(dir, 'murmur.yaml'), 'utf8');
    writeFileSync(
      path.join(dir, 'murmur.yaml'),
      `${yaml}network:\n  authentication:\n    scheme: bearer\n    credentials:\n      ops: { scopes: [SendMessage, GetTask] }\n`,
    );
    parent = await runDoor(dir, [], home);
  });
  after(() => parent?.stop());

  test('the child presents its delegation token; a completion without one is refused before the body', async () => {
    const { tokens } = JSON.parse(readFileSync(path.join(parent.recordsDir, 'tokens.json'), 'utf8')) as { tokens: { credential: string; token: string }[] };
    const ops = tokens.find((t) => t.credential === 'ops')!.token;
    const client = new MurmurClient(parent.url, { token: ops });
    const task = await client.sendText('count the files');
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    assert.match(responseText(task as never), /WORKER-ANSWER/);
    const bare = await fetch(parent.url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-murmur-task-origin': 'completion' }, body: '{}' });
    assert.equal(bare.status, 401);
    // Another credential's token is no delegation's: -31002.
    const start = traceOf(parent.recordsDir).find((r) => r.type === 'delegation_start') as Record<string, string>;
    const other = await completion(parent.url, { 'x-murmur-completion-session': parent.sessionId, 'x-murmur-delegation-id': start.delegation_id! }, ops);
    assert.equal(other.body.error?.code, -31002);
  });
});

describe('a delegation bounded by MURMUR_DELEGATION_TIMEOUT_SECS', () => {
  const home = tempDir('home');
  let parent: DoorProcess;
  before(async () => {
    parent = await runDoor(capsules(), [], home, { env: { MURMUR_DELEGATION_TIMEOUT_SECS: '1' } });
  });
  after(() => parent?.stop());

  test('a child that has not completed in time ends timed_out, is stopped, and the task continues with no outcome', async () => {
    const client = new MurmurClient(parent.url);
    const started = Date.now();
    const task = await client.sendText('hold');
    // Well short of the child's 60 s (a loaded machine's child start and stop take seconds of it).
    assert.ok(Date.now() - started < 40_000, 'the 60 s child did not hold the task');
    assert.match(
      responseText(task as never),
      /ended timed_out, with no outcome from worker:\n<untrusted-content source=delegation:worker>\nworker did not finish within 1s; it was stopped\n/,
    );
    const start = traceOf(parent.recordsDir).find((r) => r.type === 'delegation_start') as Record<string, string>;
    await waitFor(() => traceOf(start.child_workdir!).some((r) => r.type === 'session_end'), 'the child session_end');
  });
});
