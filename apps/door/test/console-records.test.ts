/**
 * `mur console`'s record API (docs/console.md, "The record API"): a task's record rebuilt from trace.jsonl and
 * store.db, served for live, stale and ended sessions, paged, searchable and exported as NDJSON.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import type { ConsoleRecordSessionsResponse, ConsoleTaskRecordPage, ConsoleTaskSummariesPage, TaskRecordEntry } from '@murmur/protocol';
import { startTestConsole } from './support/console.js';
import { type DoorProcess, makeCapsule, manifestYaml, runDoor, tempDir } from './support/door-process.js';
import { rpc, send } from './support/rpc.js';

const SCRIPT = `
rules:
  - match: '^build (the \\w+)'
    turns:
      - thinking: ["planning"]
        tools:
          - tool: bash
            input: { command: "sleep 0.2; echo built {{match.1}}" }
        answer: "{{tool.stdout}}"
  - match: '^deploy'
    turns:
      - ask: Which branch?
      - answer: "deployed {{reply}}"
default:
  turns:
    - answer: no rule
`;

describe('the record API', () => {
  const home = tempDir('home');
  let ended: DoorProcess;
  let live: DoorProcess;
  let consoleUrl: string;
  let close: () => Promise<void>;
  // mur console starts beside the doors: it reads the home on each request, so nothing needs to exist before it.
  let consoleStarting: Promise<void> | undefined;
  const ids: Record<string, string> = {};

  before(async () => {
    consoleStarting = startTestConsole(home).then((started) => {
      consoleUrl = started.url;
      close = started.close;
    });
    ended = await runDoor(makeCapsule(manifestYaml({ name: 'ended-one' }), SCRIPT), [], home);
    ids.build = (await send(ended.url, 'build the kite\nsecond line')).json.result.task.id;
    ids.deploy = (await send(ended.url, 'deploy please')).json.result.task.id;
    await send(ended.url, 'main-branch', { taskId: ids.deploy });
    ids.getTask = JSON.stringify((await rpc(ended.url, 'GetTask', { id: ids.build })).json.result);
    await ended.stop();
    live = await runDoor(makeCapsule(manifestYaml({ name: 'live-one' }), SCRIPT), [], home);
    ids.live = (await send(live.url, 'hello there')).json.result.task.id;
    // The console reads the doors' MURMUR_HOME, as `MURMUR_HOME=<home> mur console` would.
    await consoleStarting;
  });
  after(async () => {
    await consoleStarting?.catch(() => undefined);
    await close?.();
    await live?.stop();
  });

  const get = async <T>(p: string): Promise<T> => {
    const answer = await fetch(`${consoleUrl}${p}`);
    assert.equal(answer.status, 200, `${p}: ${await answer.clone().text()}`);
    return (await answer.json()) as T;
  };

  test('a request whose Host names another site (DNS rebinding) is refused 421 misdirected, before any API, proxy or page answers', async () => {
    const port = Number(new URL(consoleUrl).port);
    const ask = (host: string, path: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
            let body = '';
            res.setEncoding('utf8').on('data', (d: string) => (body += d));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          })
          .on('error', reject);
      });
    for (const path of ['/api/records/sessions', `/api/door/${new URL(live.url).host}/.well-known/agent-card.json`, '/']) {
      const refused = await ask(`rebind.example.test:${port}`, path);
      assert.equal(refused.status, 421, path);
      assert.equal(
        refused.body,
        `{"error":"misdirected","message":"mur console answers requests addressed to this machine by an IP address or localhost (or its --host), not to rebind.example.test:${port}"}`,
      );
    }
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LocalHost:${port}`, `[::1]:${port}`]) {
      assert.equal((await ask(host, '/api/records/sessions')).status, 200, host);
    }
  });

  test('lists the ended and the live session with their state', async () => {
    const { sessions } = await get<ConsoleRecordSessionsResponse>('/api/records/sessions');
    const byId = new Map(sessions.map((s) => [s.sessionId, s]));
    assert.equal(byId.get(ended.sessionId)?.state, 'ended');
    assert.equal(byId.get(ended.sessionId)?.name, 'ended-one');
    assert.ok(byId.get(ended.sessionId)?.endedAt);
    assert.equal(byId.get(live.sessionId)?.state, 'live');
    assert.equal(byId.get(live.sessionId)?.endedAt, null);
  });

  test('an ended task’s record after its capsule stopped: input, turn, tool call with input, output and timing, answer, end', async () => {
    const record = await get<ConsoleTaskRecordPage>(`/api/records/tasks/${ids.build}`);
    const wire = JSON.parse(ids.getTask);
    assert.equal(record.task.taskId, wire.id);
    assert.equal(record.task.contextId, wire.contextId);
    assert.equal(record.task.state, 'TASK_STATE_COMPLETED');
    assert.equal(record.task.updatedAt, wire.status.timestamp);
    assert.equal(record.task.input, 'build the kite\nsecond line');
    assert.equal(record.task.answer, 'built the kite');
    assert.equal(record.task.turns, 2, 'the tool call’s turn, then the answering turn');
    assert.equal(record.task.toolCalls, 1);
    assert.ok(record.task.durationMs !== null && record.task.durationMs >= 200);
    assert.deepEqual(
      record.entries.map((e) => e.kind),
      ['input', 'turn', 'tool-call', 'turn', 'answer', 'end'],
    );
    const call = record.entries.find((e) => e.kind === 'tool-call') as Extract<TaskRecordEntry, { kind: 'tool-call' }>;
    assert.equal(call.tool, 'bash');
    // The template's value reaches the shell as one quoted word (shell-safe templates, docs/script-driver.md).
    assert.deepEqual(call.input, { command: "sleep 0.2; echo built 'the kite'" });
    assert.match(call.output ?? '', /built the kite/);
    assert.equal(call.exitCode, 0);
    assert.ok(call.durationMs !== null && call.durationMs >= 200, `duration ${call.durationMs}`);
    const turn = record.entries.find((e) => e.kind === 'turn') as Extract<TaskRecordEntry, { kind: 'turn' }>;
    assert.ok(turn.durationMs !== null && turn.durationMs >= 0 && turn.offsetMs <= call.offsetMs);
    // The inference record's timing: the call ends before its tool call starts; thinking streamed, so a first token.
    assert.ok(turn.offsetMs + (turn.durationMs ?? 0) <= call.offsetMs + 1);
    assert.ok(turn.firstTokenMs !== null && turn.firstTokenMs <= (turn.durationMs ?? 0));
    assert.equal(turn.stopReason, 'tool_use');
    assert.equal(turn.inputTokens, null, 'the script reported no usage');
    assert.ok(record.entries.every((e, i, all) => i === 0 || e.offsetMs >= all[i - 1].offsetMs));
  });

  test('a reply is recorded as the operator’s message', async () => {
    const record = await get<ConsoleTaskRecordPage>(`/api/records/tasks/${ids.deploy}`);
    assert.deepEqual(
      record.entries.map((e) => e.kind),
      ['input', 'turn', 'input-required', 'reply', 'turn', 'answer', 'end'],
    );
    assert.deepEqual(
      record.entries.filter((e) => e.kind === 'reply').map((e) => (e as { text: string }).text),
      ['main-branch'],
    );
    assert.equal(record.task.answer, 'deployed main-branch');
  });

  test('pages a record with limit and cursor', async () => {
    const first = await get<ConsoleTaskRecordPage>(`/api/records/tasks/${ids.deploy}?limit=3`);
    assert.equal(first.entries.length, 3);
    assert.equal(first.total, 7);
    assert.equal(first.nextCursor, '3');
    const second = await get<ConsoleTaskRecordPage>(`/api/records/tasks/${ids.deploy}?limit=3&cursor=${first.nextCursor}`);
    const third = await get<ConsoleTaskRecordPage>(`/api/records/tasks/${ids.deploy}?limit=3&cursor=${second.nextCursor}`);
    assert.equal(third.nextCursor, null);
    assert.deepEqual(
      [...first.entries, ...second.entries, ...third.entries].map((e) => e.kind),
      ['input', 'turn', 'input-required', 'reply', 'turn', 'answer', 'end'],
    );
  });

  test('a session’s tasks, newest first, searched server-side over inputs, replies and answers', async () => {
    const all = await get<ConsoleTaskSummariesPage>(`/api/records/sessions/${ended.sessionId}/tasks`);
    assert.deepEqual(
      all.tasks.map((t) => t.taskId),
      [ids.deploy, ids.build],
    );
    assert.equal(all.session.state, 'ended');
    const byAnswer = await get<ConsoleTaskSummariesPage>(`/api/records/sessions/${ended.sessionId}/tasks?q=KITE`);
    assert.deepEqual(
      byAnswer.tasks.map((t) => t.taskId),
      [ids.build],
    );
    const byReply = await get<ConsoleTaskSummariesPage>(`/api/records/sessions/${ended.sessionId}/tasks?q=main-branch`);
    assert.deepEqual(
      byReply.tasks.map((t) => t.taskId),
      [ids.deploy],
    );
    const none = await get<ConsoleTaskSummariesPage>(`/api/records/sessions/${ended.sessionId}/tasks?q=nothing-like-this`);
    assert.equal(none.total, 0);
    const liveTasks = await get<ConsoleTaskSummariesPage>(`/api/records/sessions/${live.sessionId}/tasks`);
    assert.equal(liveTasks.tasks[0].input, 'hello there');
  });

  test('summaries by task ids, across sessions, for tables and timeline headers', async () => {
    const { tasks } = await get<{ tasks: { taskId: string; input: string | null }[] }>(
      `/api/records/tasks?ids=${ids.build},${ids.live},tsk_${'0'.repeat(32)},bad`,
    );
    assert.deepEqual(Object.fromEntries(tasks.map((t) => [t.taskId, t.input])), { [ids.build]: 'build the kite\nsecond line', [ids.live]: 'hello there' });
  });

  test('exports a task’s record as NDJSON: the task line, then every entry', async () => {
    const answer = await fetch(`${consoleUrl}/api/records/tasks/${ids.build}/export`);
    assert.equal(answer.status, 200);
    assert.match(answer.headers.get('content-type') ?? '', /^application\/x-ndjson/);
    const lines = (await answer.text())
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    const record = await get<ConsoleTaskRecordPage>(`/api/records/tasks/${ids.build}`);
    assert.deepEqual(lines[0], { kind: 'task', ...record.task });
    assert.deepEqual(lines.slice(1), record.entries);
  });

  test('filters a session’s tasks by state and context beside q', async () => {
    const waiting = await get<ConsoleTaskSummariesPage>(`/api/records/sessions/${ended.sessionId}/tasks?state=TASK_STATE_COMPLETED&q=kite`);
    assert.deepEqual(
      waiting.tasks.map((t) => t.taskId),
      [ids.build],
    );
    const failed = await get<ConsoleTaskSummariesPage>(`/api/records/sessions/${ended.sessionId}/tasks?state=TASK_STATE_FAILED`);
    assert.equal(failed.total, 0);
    const ctx = waiting.tasks[0].contextId;
    const byContext = await get<ConsoleTaskSummariesPage>(`/api/records/sessions/${ended.sessionId}/tasks?contextId=${ctx}`);
    assert.deepEqual(
      byContext.tasks.map((t) => t.taskId),
      [ids.build],
    );
  });

  test('exports a whole session’s record as NDJSON: the session, then each task and its entries', async () => {
    const answer = await fetch(`${consoleUrl}/api/records/sessions/${ended.sessionId}/export`);
    assert.equal(answer.status, 200);
    assert.match(answer.headers.get('content-type') ?? '', /^application\/x-ndjson/);
    const lines = (await answer.text())
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.equal(lines[0].kind, 'session');
    assert.equal(lines[0].sessionId, ended.sessionId);
    const taskLines = lines.filter((l) => l.kind === 'task').map((l) => l.taskId);
    assert.deepEqual(new Set(taskLines), new Set([ids.build, ids.deploy]));
    const record = await get<ConsoleTaskRecordPage>(`/api/records/tasks/${ids.build}`);
    const start = lines.findIndex((l) => l.kind === 'task' && l.taskId === ids.build);
    assert.deepEqual(
      lines.slice(start + 1, start + 1 + record.entries.length),
      record.entries.map((e) => ({ taskId: ids.build, ...e })),
    );
  });

  test('unknown or malformed ids answer 404 not_found', async () => {
    for (const p of [
      '/api/records/tasks/tsk_00000000000000000000000000000000',
      '/api/records/tasks/../../etc',
      `/api/records/sessions/ses_${'0'.repeat(32)}/tasks`,
    ]) {
      const answer = await fetch(`${consoleUrl}${p}`);
      assert.equal(answer.status, 404, p);
      assert.equal(((await answer.json()) as { error: string }).error, 'not_found');
    }
  });
});
