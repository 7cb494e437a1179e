/**
 * The record plane (docs/console.md, "Every door serves its record"): every door serves its own session's record under
 * /resources/records, to the operator token or a credential holding resources/records, to every caller of a public
 * door; paged and bounded like ListTasks; every refusal pinned.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type {
  ConsoleFormationsResponse,
  ConsolePeerHandlesResponse,
  ConsoleRecordSessionsResponse,
  ConsoleTaskRecordPage,
  ConsoleTaskSummariesPage,
  ConsoleTaskSummariesResponse,
  RecordFormationResponse,
  RecordMemberCallsResponse,
} from '@murmur/protocol';
import { MurmurClient } from '@murmur/client';
import { startedTogether, startTestConsole } from './support/console.js';
import {
  assertInsufficientScope,
  assertInvalidToken,
  assertRefusalBody,
  assertUnauthenticated,
  authBlock,
  bearer,
  raw,
  sendAs,
  tokensOf,
} from './support/auth.js';
import { type DoorProcess, makeCapsule, manifestYaml, runDoor, tempDir } from './support/door-process.js';
import { type FormationProcess, makeFormation, runFormation } from './support/formation.js';
import { send } from './support/rpc.js';

const SCRIPT = `
rules:
  - match: '^build (the \\w+)'
    turns:
      - tools:
          - tool: bash
            input: { command: "echo built {{match.1}}; exit 3" }
        answer: "{{tool.stdout}}"
  - match: '^deploy'
    turns:
      - ask: Which branch?
      - answer: "deployed {{reply}}"
default:
  turns:
    - answer: no rule
`;

const REALM = 'records-door';

describe('the record plane of an authenticated door', () => {
  let door: DoorProcess;
  let tokens: Record<string, string>;
  const ids: Record<string, string> = {};

  before(async () => {
    const extra = authBlock({ reader: ['resources/records'], watcher: ['GetTask', 'ListTasks'] });
    door = await runDoor(makeCapsule(manifestYaml({ name: REALM, extra }), SCRIPT));
    tokens = tokensOf(door);
    ids.build = (await sendAs(door.url, tokens.operator, 'build the kite')).json.result.task.id;
    ids.deploy = (await sendAs(door.url, tokens.operator, 'deploy please')).json.result.task.id;
    await sendAs(door.url, tokens.operator, 'main-branch', { taskId: ids.deploy });
  });
  after(async () => {
    await door?.stop();
  });

  const get = (p: string, token: string | null = tokens.operator, method = 'GET') =>
    raw(door.url, { method, path: p, headers: token === null ? {} : bearer(token) });
  const ok = async <T>(p: string, token: string | null = tokens.operator): Promise<T> => {
    const answer = await get(p, token);
    assert.equal(answer.status, 200, `${p}: ${answer.text}`);
    assert.equal(answer.headers['cache-control'], 'no-store', `${p}: cache-control`);
    return answer.json as T;
  };

  test('the operator reads the task record a console shows: input, turn, tool call with input, output, exit code and duration, input request, reply, answer, end', async () => {
    const build = await ok<ConsoleTaskRecordPage>(`/resources/records/tasks/${ids.build}`);
    assert.equal(build.task.taskId, ids.build);
    assert.equal(build.task.sessionId, door.sessionId);
    assert.equal(build.task.input, 'build the kite');
    const kinds = build.entries.map((e) => e.kind);
    assert.deepEqual(kinds, ['input', 'turn', 'tool-call', 'turn', 'answer', 'end']);
    const tool = build.entries.find((e) => e.kind === 'tool-call');
    assert.ok(tool?.kind === 'tool-call');
    assert.deepEqual(tool.input, { command: "echo built 'the kite'; exit 3" });
    assert.match(tool.output ?? '', /built the kite/);
    assert.equal(tool.exitCode, 3);
    assert.equal(typeof tool.durationMs, 'number');
    const turn = build.entries.find((e) => e.kind === 'turn');
    assert.ok(turn?.kind === 'turn' && 'firstTokenMs' in turn && 'inputTokens' in turn);
    assert.deepEqual(build.members, []);

    const deploy = await ok<ConsoleTaskRecordPage>(`/resources/records/tasks/${ids.deploy}`);
    const prompt = deploy.entries.find((e) => e.kind === 'input-required');
    assert.ok(prompt?.kind === 'input-required' && prompt.prompt === 'Which branch?');
    const reply = deploy.entries.find((e) => e.kind === 'reply');
    assert.ok(reply?.kind === 'reply' && reply.text === 'main-branch');
    const answer = deploy.entries.find((e) => e.kind === 'answer');
    assert.ok(answer?.kind === 'answer' && answer.text === 'deployed main-branch');
  });

  test('its own session, its task summaries with search and filters, summaries by id', async () => {
    const { sessions } = await ok<ConsoleRecordSessionsResponse>('/resources/records/sessions');
    assert.equal(sessions.length, 1);
    assert.equal(sessions[0].sessionId, door.sessionId);
    assert.equal(sessions[0].state, 'live');
    assert.equal(sessions[0].url, door.url);
    assert.equal(sessions[0].name, REALM);

    const all = await ok<ConsoleTaskSummariesPage>(`/resources/records/sessions/${door.sessionId}/tasks`);
    assert.equal(all.total, 2);
    const found = await ok<ConsoleTaskSummariesPage>(`/resources/records/sessions/${door.sessionId}/tasks?q=KITE`);
    assert.deepEqual(
      found.tasks.map((t) => t.taskId),
      [ids.build],
    );
    const byReply = await ok<ConsoleTaskSummariesPage>(`/resources/records/sessions/${door.sessionId}/tasks?q=main-branch`);
    assert.deepEqual(
      byReply.tasks.map((t) => t.taskId),
      [ids.deploy],
    );
    const completed = await ok<ConsoleTaskSummariesPage>(`/resources/records/sessions/${door.sessionId}/tasks?state=TASK_STATE_COMPLETED&limit=1`);
    assert.equal(completed.total, 2);
    assert.equal(completed.tasks.length, 1);
    assert.equal(completed.nextCursor, '1');
    const later = await ok<ConsoleTaskSummariesPage>(`/resources/records/sessions/${door.sessionId}/tasks?since=2999-01-01T00:00:00Z`);
    assert.equal(later.total, 0);

    const byIds = await ok<ConsoleTaskSummariesResponse>(`/resources/records/tasks?ids=${ids.build},${ids.deploy},tsk_${'0'.repeat(32)}`);
    assert.deepEqual(byIds.tasks.map((t) => t.taskId).sort(), [ids.build, ids.deploy].sort());
  });

  test('the exports are NDJSON: a task, and the whole session with every entry naming its task', async () => {
    const task = await get(`/resources/records/tasks/${ids.build}/export`);
    assert.equal(task.status, 200);
    assert.match(String(task.headers['content-type']), /^application\/x-ndjson/);
    assert.equal(task.headers['content-disposition'], `attachment; filename="${ids.build}.ndjson"`);
    const lines = task.text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(lines[0].kind, 'task');
    assert.equal(lines[0].taskId, ids.build);
    assert.deepEqual(
      lines.slice(1).map((l) => l.kind),
      ['input', 'turn', 'tool-call', 'turn', 'answer', 'end'],
    );

    const session = await get(`/resources/records/sessions/${door.sessionId}/export`);
    assert.equal(session.status, 200);
    assert.equal(session.headers['content-disposition'], `attachment; filename="${door.sessionId}.ndjson"`);
    const sessionLines = session.text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(sessionLines[0].kind, 'session');
    assert.equal(sessionLines[0].sessionId, door.sessionId);
    assert.equal(sessionLines.filter((l) => l.kind === 'task').length, 2);
    for (const line of sessionLines.filter((l) => l.kind !== 'session' && l.kind !== 'task')) assert.ok([ids.build, ids.deploy].includes(line.taskId));

    const head = await get(`/resources/records/sessions/${door.sessionId}/export`, tokens.operator, 'HEAD');
    assert.equal(head.status, 200);
    assert.equal(head.text, '');
  });

  test('a credential holding resources/records reads it; one without is refused 403 with the scope named', async () => {
    const page = await ok<ConsoleTaskRecordPage>(`/resources/records/tasks/${ids.build}`, tokens.reader);
    assert.equal(page.task.taskId, ids.build);
    for (const p of [
      '/resources/records/sessions',
      `/resources/records/tasks/${ids.build}`,
      `/resources/records/sessions/${door.sessionId}/export`,
      '/resources/records/formation',
      '/resources/records/nothing',
    ]) {
      assertInsufficientScope(await get(p, tokens.watcher), REALM, 'watcher', 'resources/records', p);
    }
  });

  test('no token is 401 unauthenticated, a wrong one 401 invalid_token, before the path is read', async () => {
    for (const p of [`/resources/records/tasks/${ids.build}`, '/resources/records/tasks/tsk_nonsense']) {
      assertUnauthenticated(await get(p, null), REALM, p);
      assertInvalidToken(await get(p, `mur_${'A'.repeat(43)}`), REALM, p);
    }
  });

  test('404 not_found for an unknown task, another session, a malformed id or an unknown path of the plane', async () => {
    const cases = [
      `/resources/records/tasks/tsk_${'0'.repeat(32)}`,
      `/resources/records/tasks/tsk_${'0'.repeat(32)}/export`,
      '/resources/records/tasks/not-an-id',
      `/resources/records/sessions/ses_${'0'.repeat(32)}/tasks`,
      `/resources/records/sessions/ses_${'0'.repeat(32)}/peer-handles`,
      `/resources/records/sessions/${door.sessionId}/nothing`,
      '/resources/records',
      '/resources/records/elsewhere',
      '/resources/records/tasks/%zz',
      '/resources/records/formation',
    ];
    for (const p of cases) {
      const answer = await get(p);
      assert.equal(answer.status, 404, `${p}: ${answer.text}`);
      assertRefusalBody(answer, 'not_found', p);
      assert.equal(answer.json.message, `no record at ${p}`, p);
    }
  });

  test('400 invalid_request for a paging or filter parameter out of its range', async () => {
    const task = `/resources/records/tasks/${ids.build}`;
    const tasks = `/resources/records/sessions/${door.sessionId}/tasks`;
    const cases: [string, string][] = [
      [`${task}?limit=0`, 'limit must be an integer from 1 to 1000'],
      [`${task}?limit=1001`, 'limit must be an integer from 1 to 1000'],
      [`${tasks}?limit=ten`, 'limit must be an integer from 1 to 1000'],
      [`${task}?cursor=-1`, 'cursor must be a nextCursor this API answered (a non-negative integer)'],
      [`${tasks}?cursor=abc`, 'cursor must be a nextCursor this API answered (a non-negative integer)'],
      [`${tasks}?since=yesterday`, 'since must be an RFC 3339 time, such as 2026-10-13T09:00:00Z'],
      [`${tasks}?state=done`, /^state must be a task state \(TASK_STATE_SUBMITTED, /.source],
    ];
    for (const [p, message] of cases) {
      const answer = await get(p);
      assert.equal(answer.status, 400, `${p}: ${answer.text}`);
      assertRefusalBody(answer, 'invalid_request', p);
      if (message.startsWith('^')) assert.match(answer.json.message, new RegExp(message), p);
      else assert.equal(answer.json.message, message, p);
    }
  });

  test('any method but GET and HEAD is 405 with Allow: GET, HEAD', async () => {
    const answer = await get(`/resources/records/tasks/${ids.build}`, tokens.operator, 'DELETE');
    assert.equal(answer.status, 405);
    assert.equal(answer.headers.allow, 'GET, HEAD');
    assertRefusalBody(answer, 'method_not_allowed', 'DELETE');
  });
});

describe('the record plane of a public door', () => {
  let door: DoorProcess;
  let taskId: string;
  before(async () => {
    door = await runDoor(makeCapsule(manifestYaml({ name: 'open-door' }), SCRIPT));
    taskId = (await send(door.url, 'build the boat')).json.result.task.id;
  });
  after(async () => {
    await door?.stop();
  });

  test('every caller reads every task’s record, as every caller sees every task (seed 000, "Who sees a task")', async () => {
    const answer = await raw(door.url, { method: 'GET', path: `/resources/records/tasks/${taskId}` });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.json.task.input, 'build the boat');
    const withAnyToken = await raw(door.url, { method: 'GET', path: `/resources/records/tasks/${taskId}`, headers: bearer('whatever') });
    assert.equal(withAnyToken.status, 200, 'a public door ignores Authorization');
  });
});

const TOOL_CALLS = 10_000;

describe(`a task with ${TOOL_CALLS} tool calls`, () => {
  let door: DoorProcess;
  let taskId: string;
  before(async () => {
    const script = `
rules:
  - match: '^many'
    turns:
      - tools:
${'          - tool: session-status\n'.repeat(TOOL_CALLS)}      - answer: ran them all
default:
  turns:
    - answer: no rule
`;
    door = await runDoor(makeCapsule(manifestYaml({ name: 'many-calls' }), script));
    taskId = (await send(door.url, 'many calls')).json.result.task.id;
  });
  after(async () => {
    await door?.stop();
  });

  test('pages at most 1,000 entries a page, every entry once, in order; a larger limit is refused', { timeout: 600_000 }, async () => {
    const toolCalls: string[] = [];
    let entries = 0;
    let cursor: string | null = '0';
    let pages = 0;
    let total = 0;
    while (cursor !== null) {
      const answer = await raw(door.url, { method: 'GET', path: `/resources/records/tasks/${taskId}?limit=1000&cursor=${cursor}` });
      assert.equal(answer.status, 200, answer.text);
      const page = answer.json as ConsoleTaskRecordPage;
      assert.ok(page.entries.length <= 1000, `page ${pages}: ${page.entries.length} entries`);
      assert.ok(page.entries.length > 0);
      total = page.total;
      entries += page.entries.length;
      for (const e of page.entries) if (e.kind === 'tool-call') toolCalls.push(e.toolCallId);
      cursor = page.nextCursor;
      pages++;
    }
    assert.equal(entries, total);
    assert.equal(toolCalls.length, TOOL_CALLS);
    assert.equal(new Set(toolCalls).size, TOOL_CALLS, 'every tool call once');
    assert.ok(pages >= Math.ceil(total / 1000), `${pages} pages for ${total} entries`);
    const refused = await raw(door.url, { method: 'GET', path: `/resources/records/tasks/${taskId}?limit=10000` });
    assert.equal(refused.status, 400);
    assert.equal(refused.json.message, 'limit must be an integer from 1 to 1000');
  });
});

const OWNER_SCRIPT = `
rules:
  - match: ^handoff (\\S+)$
    turns:
      - tools:
          - tool: share-file
            input: { path: "{{match.1}}", audience: reader }
      - tools:
          - tool: call-member
            input: { member: reader, task: "fetch {{tool.content}}" }
        answer: waiting
      - answer: "{{continuation}}"
default:
  turns:
    - answer: "owner: {{task.text}}"
`;

const READER_SCRIPT = `
rules:
  - match: (http://\\S+?/resources/peer/phk_[A-Za-z0-9_-]{43})
    turns:
      - tools:
          - tool: fetch-peer-file
            input: { url: "{{match.1}}", save_as: inbox/report.txt }
        answer: "{{tool.content}}"
default:
  turns:
    - answer: "reader: {{task.text}}"
`;

const member = (name: string, lines: string[]) =>
  [
    `name: ${name}`,
    'version: 0.1.0',
    'lifecycle:',
    '  task_acceptance: queue',
    'inference:',
    '  driver: script',
    '  script: script.yaml',
    '  max_turns: 4',
    ...lines,
    '',
  ].join('\n');

describe('the record plane of formation members', () => {
  const home = tempDir('home');
  let formation: FormationProcess;
  let callerTaskId: string;
  before(async () => {
    const roster = makeFormation(
      'name: records\nentry: owner\nmembers:\n  owner: { capsule: ./owner }\n  reader: { capsule: ./reader }\nrules:\n  - from: owner\n    to: [reader]\n',
      {
        owner: {
          manifest: member('owner', ['capabilities:', '  network:', '    allow: [localhost]', 'exports:', '  peer_files:', '    root: shared']),
          script: OWNER_SCRIPT,
        },
        reader: {
          manifest: member('reader', [
            'capabilities:',
            '  peer_fetch: true',
            '  network:',
            '    allow: [localhost]',
            'exports:',
            '  peer_tasks:',
            '    accept: true',
          ]),
          script: READER_SCRIPT,
        },
      },
    );
    const shared = path.join(path.dirname(roster), 'owner', 'shared');
    mkdirSync(shared, { recursive: true });
    writeFileSync(path.join(shared, 'report.txt'), 'the quarterly numbers\n');
    formation = await runFormation(roster, home);
    const task = await new MurmurClient(formation.member('owner').url).sendText('handoff report.txt');
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    callerTaskId = task.id;
  });
  after(() => formation?.mur.kill('SIGKILL'));

  test('the caller’s door serves its calls, each naming the callee’s door', async () => {
    const owner = formation.member('owner');
    const answer = await raw(owner.url, { method: 'GET', path: '/resources/records/calls' });
    assert.equal(answer.status, 200, answer.text);
    const body = answer.json as RecordMemberCallsResponse;
    assert.equal(body.sessionId, owner.sessionId);
    assert.equal(body.calls.length, 1);
    const [call] = body.calls;
    assert.equal(call.callerTaskId, callerTaskId);
    assert.equal(call.callee, 'reader');
    assert.equal(call.calleeUrl, formation.member('reader').url);
    assert.equal(call.status, 'completed');
    assert.ok(call.memberTaskId);
    assert.deepEqual(body.delegations, [], 'the owner delegated nothing');
    const none = await raw(formation.member('reader').url, { method: 'GET', path: '/resources/records/calls' });
    assert.deepEqual([none.json.calls, none.json.delegations], [[], []], 'the reader called nobody');
  });

  test('the caller’s record names the member’s door, and the member’s door serves the member’s task', async () => {
    const page = (await raw(formation.member('owner').url, { method: 'GET', path: `/resources/records/tasks/${callerTaskId}` })).json as ConsoleTaskRecordPage;
    const call = page.entries.find((e) => e.kind === 'tool-call' && e.tool === 'call-member');
    assert.ok(call?.kind === 'tool-call' && call.memberCall);
    assert.equal(call.memberCall.memberUrl, formation.member('reader').url);
    assert.deepEqual(page.members, [], 'the member’s task is not in the caller’s session');
    const memberTask = await raw(call.memberCall.memberUrl, { method: 'GET', path: `/resources/records/tasks/${call.memberCall.memberTaskId}` });
    assert.equal(memberTask.status, 200, memberTask.text);
    assert.equal(memberTask.json.task.sessionId, formation.member('reader').sessionId);
    assert.ok(memberTask.json.entries.some((e: { kind: string; tool?: string }) => e.kind === 'tool-call' && e.tool === 'fetch-peer-file'));
  });

  test('the owner’s door serves the peer handles its session minted, with the redeem', async () => {
    const owner = formation.member('owner');
    const answer = await raw(owner.url, { method: 'GET', path: `/resources/records/sessions/${owner.sessionId}/peer-handles` });
    assert.equal(answer.status, 200, answer.text);
    const body = answer.json as ConsolePeerHandlesResponse;
    assert.equal(body.sessionId, owner.sessionId);
    assert.equal(body.handles.length, 1);
    assert.equal(body.handles[0].audience, 'reader');
    assert.equal(body.handles[0].path, 'report.txt');
    assert.equal(body.handles[0].used, 1);
    assert.equal(body.handles[0].redeems.length, 1);
    assert.equal(body.handles[0].taskId, callerTaskId);
    assert.doesNotMatch(answer.text, /phk_/, 'never a secret');
  });

  test('each member’s door serves the formation as its seat knows it: name, supervisor, entry, every member and door', async () => {
    for (const name of ['owner', 'reader']) {
      const answer = await raw(formation.member(name).url, { method: 'GET', path: '/resources/records/formation' });
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.headers['cache-control'], 'no-store');
      const body = answer.json as RecordFormationResponse;
      assert.deepEqual(
        { ...body, startedAt: typeof body.startedAt },
        {
          key: `records-${formation.pid}`,
          name: 'records',
          pid: formation.pid,
          entry: 'owner',
          rosterFile: body.rosterFile,
          startedAt: 'string',
          member: name,
          members: formation.members.map((m) => ({ member: m.member, sessionId: m.sessionId, url: m.url, pid: m.pid, entry: m.member === 'owner' })),
        },
      );
      assert.ok(path.isAbsolute(body.rosterFile) && body.rosterFile.endsWith('roster.yaml'), body.rosterFile);
      assert.ok(!Number.isNaN(Date.parse(body.startedAt)), body.startedAt);
    }
  });

  test('mur console with another MURMUR_HOME discovers the formation from its added doors: members, calls and task counts from the doors', async () => {
    // The formation's two doors, added: on its own host they are also its registered members. (The same door added
    // twice is refused by mur console itself: console-added-doors.test.ts.)
    const doors = ['owner', 'reader'].map((name) => ({ url: formation.member(name).url }));
    const [elsewhere, here] = await startedTogether([startTestConsole(tempDir('console-home'), { doors }), startTestConsole(home, { doors })]);
    try {
      const { formations } = (await (await fetch(`${elsewhere.url}/api/formations`)).json()) as ConsoleFormationsResponse;
      assert.equal(formations.length, 1, 'one formation, however many of its doors are added');
      const [f] = formations;
      assert.equal(f.key, `records-${formation.pid}@127.0.0.1`);
      assert.deepEqual([f.name, f.pid, f.state, f.source, f.entry, f.delegations], ['records', formation.pid, 'live', 'doors', 'owner', []]);
      assert.deepEqual(
        f.members.map((m) => [m.member, m.sessionId, m.url, m.entry, m.session, m.records]),
        formation.members.map((m) => [m.member, m.sessionId, m.url, m.member === 'owner', 'live', 'door']),
      );
      assert.deepEqual(
        f.members.map((m) => m.tasks),
        [{ TASK_STATE_COMPLETED: 1 }, { TASK_STATE_COMPLETED: 1 }],
      );
      assert.equal(f.calls.length, 1);
      assert.deepEqual(
        [f.calls[0].caller, f.calls[0].callerTaskId, f.calls[0].callee, f.calls[0].calleeSessionId, f.calls[0].memberTaskState],
        ['owner', callerTaskId, 'reader', formation.member('reader').sessionId, 'TASK_STATE_COMPLETED'],
      );
      // On the formation's own host it is the registered formation, listed once under its registry key.
      const onHost = (await (await fetch(`${here.url}/api/formations`)).json()) as ConsoleFormationsResponse;
      assert.deepEqual(
        onHost.formations.map((x) => x.key),
        [`records-${formation.pid}`],
      );
    } finally {
      await elsewhere.close();
      await here.close();
    }
  });

  test('mur console on a host with the formation’s registry but not its members’ records reads each member’s calls from its door', async () => {
    const consoleHome = tempDir('console-home');
    cpSync(path.join(home, 'formations'), path.join(consoleHome, 'formations'), { recursive: true });
    const started = await startTestConsole(consoleHome);
    try {
      const { formations } = (await (await fetch(`${started.url}/api/formations`)).json()) as ConsoleFormationsResponse;
      assert.equal(formations.length, 1);
      const [f] = formations;
      assert.deepEqual(
        f.members.map((m) => [m.member, m.records]),
        [
          ['owner', 'door'],
          ['reader', 'door'],
        ],
      );
      assert.equal(f.calls.length, 1);
      assert.equal(f.calls[0].caller, 'owner');
      assert.equal(f.calls[0].callerTaskId, callerTaskId);
      assert.equal(f.calls[0].calleeSessionId, formation.member('reader').sessionId);
      assert.equal(f.calls[0].memberTaskState, 'TASK_STATE_COMPLETED', 'the member task’s state, from the reader’s door');
      assert.equal('calleeUrl' in f.calls[0], false);
    } finally {
      await started.close();
    }
  });
});
