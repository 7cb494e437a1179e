/**
 * @murmur/client against real doors on real ports: every method, and every typed error a door answers
 * (packages/client/README.md; seed 000 "Errors", "Who sees a task", the authenticated door's refusals).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  type FetchLike,
  HttpRefusalError,
  isA2AError,
  isConnectionError,
  isHttpRefusalError,
  MurmurClient,
  type MurmurStreamEvent,
  TaskNotCancelableError,
  TaskNotFoundError,
  textMessage,
  UnsupportedOperationError,
  VersionNotSupportedError,
} from '@murmur/client';
import { CAPSULE_EXTENSION_URI, STREAM_EXTENSION_URI } from '@murmur/protocol';
import { manifest } from './support/client-cli.js';
import { type DoorProcess, makeCapsule, runDoor } from './support/door-process.js';
import { rpc } from './support/rpc.js';

const SCRIPT = `
rules:
  - match: '^say (.*)$'
    turns:
      - answer: "{{match.1}}"
  - match: '^nap'
    turns:
      - sleep_ms: 30000
        answer: rested
  - match: '^deploy'
    turns:
      - ask: Which branch?
      - answer: "deployed {{reply}}"
  - match: '^chunks'
    turns:
      - thinking: ["hmm"]
        text: ["one ", "two ", "three"]
        pace_ms: 5
default:
  turns:
    - answer: no rule
`;

const UNKNOWN = 'tsk_0190ffffffffffffffffffffffffffff';

function responseText(task: { artifacts?: { artifactId: string; parts: { text?: string }[] }[] }): string | undefined {
  return task.artifacts?.find((a) => a.artifactId === 'response')?.parts[0]?.text;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail('expected a rejection');
}

async function collect(stream: AsyncIterable<MurmurStreamEvent>, stopWhen?: (event: MurmurStreamEvent) => boolean): Promise<MurmurStreamEvent[]> {
  const events: MurmurStreamEvent[] = [];
  for await (const event of stream) {
    events.push(event);
    if (stopWhen?.(event)) break;
  }
  return events;
}

describe('MurmurClient on a public door', () => {
  let door: DoorProcess;
  let client: MurmurClient;
  before(async () => {
    door = await runDoor(makeCapsule(manifest({ name: 'client-public' }), SCRIPT));
    client = new MurmurClient(door.url, { retry: { maxRetries: 0 } });
  });
  after(() => door.stop());

  test('getCard: the door’s card names this address and session', async () => {
    const card = await client.getCard();
    assert.equal(card.name, 'client-public');
    assert.deepEqual(card.supportedInterfaces, [{ url: door.url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]);
    assert.equal(card.capabilities.extensions.find((e) => e.uri === CAPSULE_EXTENSION_URI)?.params.sessionId, door.sessionId);
  });

  test('sendMessage, sendText (held and returnImmediately), reply and getTask', async () => {
    const answered = await client.sendMessage({ message: textMessage('say raw', { contextId: 'ctx-methods' }) });
    assert.ok('task' in answered);
    assert.equal(answered.task.status.state, 'TASK_STATE_COMPLETED');
    assert.equal(answered.task.contextId, 'ctx-methods');
    assert.equal(responseText(answered.task), 'raw');

    const held = await client.sendText('say four');
    assert.equal(held.status.state, 'TASK_STATE_COMPLETED');
    assert.equal(responseText(held), 'four');
    assert.deepEqual(await client.getTask(held.id), held);

    const submitted = await client.sendText('say later', { returnImmediately: true });
    assert.equal(submitted.status.state, 'TASK_STATE_SUBMITTED');

    const asked = await client.sendText('deploy please');
    assert.equal(asked.status.state, 'TASK_STATE_INPUT_REQUIRED');
    assert.equal(asked.artifacts?.find((a) => a.artifactId === 'prompt')?.parts[0]?.text, 'Which branch?');
    const replied = await client.reply(asked.id, 'main');
    assert.equal(replied.id, asked.id);
    assert.equal(replied.status.state, 'TASK_STATE_COMPLETED');
    assert.equal(responseText(replied), 'deployed main');
  });

  test('listTasks, listTaskPages and listAllTasks walk every page once', async () => {
    const made: string[] = [];
    for (let i = 0; i < 7; i++) made.push((await client.sendText(`say page ${i}`, { contextId: 'ctx-pages' })).id);
    const first = await client.listTasks({ contextId: 'ctx-pages', pageSize: 3 });
    assert.equal(first.tasks.length, 3);
    assert.equal(first.totalSize, 7);
    assert.notEqual(first.nextPageToken, '');

    const pages = [];
    for await (const page of client.listTaskPages({ contextId: 'ctx-pages', pageSize: 2 })) pages.push(page);
    assert.deepEqual(
      pages.map((p) => p.tasks.length),
      [2, 2, 2, 1],
    );
    assert.equal(pages.at(-1)?.nextPageToken, '');

    const all = [];
    for await (const task of client.listAllTasks({ contextId: 'ctx-pages', pageSize: 2 })) all.push(task.id);
    assert.equal(new Set(all).size, 7, 'no task twice');
    assert.deepEqual([...all].sort(), [...made].sort());
    // Most recently changed first.
    assert.deepEqual(all, [...made].reverse());
  });

  test('cancelTask, TaskNotCancelableError and TaskNotFoundError carry their metadata', async () => {
    const napping = await client.sendText('nap', { returnImmediately: true });
    const canceled = await client.cancelTask(napping.id);
    assert.equal(canceled.status.state, 'TASK_STATE_CANCELED');

    const notCancelable = await rejection(client.cancelTask(napping.id));
    assert.ok(notCancelable instanceof TaskNotCancelableError);
    assert.ok(isA2AError(notCancelable, 'TaskNotCancelable'));
    assert.equal(notCancelable.code, -32002);
    assert.equal(notCancelable.message, 'Task cannot be canceled: it is already TASK_STATE_CANCELED');
    assert.deepEqual(notCancelable.metadata, { taskId: napping.id, state: 'TASK_STATE_CANCELED' });
    assert.equal(notCancelable.method, 'CancelTask');

    // Both calls are caught as they start: a rejection not yet awaited would be reported as unhandled.
    for (const caught of [rejection(client.getTask(UNKNOWN)), rejection(client.cancelTask(UNKNOWN))]) {
      const notFound = await caught;
      assert.ok(notFound instanceof TaskNotFoundError);
      assert.equal(notFound.code, -32001);
      assert.equal(notFound.reason, 'TASK_NOT_FOUND');
      assert.equal(notFound.metadata.taskId, UNKNOWN);
    }
  });

  test('getExtendedCard on a public door: UnsupportedOperationError (-32004)', async () => {
    const error = await rejection(client.getExtendedCard());
    assert.ok(error instanceof UnsupportedOperationError);
    assert.ok(isA2AError(error, 'UnsupportedOperation'));
    assert.equal(error.code, -32004);
  });

  test('a request without A2A-Version: VersionNotSupportedError, and the raw answer agrees', async () => {
    const stripping: FetchLike = (input, init) => {
      const headers = Object.fromEntries(
        Object.entries((init.headers ?? {}) as Record<string, string>).filter(([name]) => name.toLowerCase() !== 'a2a-version'),
      );
      return fetch(input, { ...init, headers });
    };
    const versionless = new MurmurClient(door.url, { fetch: stripping, retry: { maxRetries: 0 } });
    const error = await rejection(versionless.getTask(UNKNOWN));
    assert.ok(error instanceof VersionNotSupportedError);
    assert.equal(error.code, -32009);
    assert.equal(error.reason, 'VERSION_NOT_SUPPORTED');
    assert.deepEqual(error.metadata, { requestedVersion: '', supportedVersions: '1.0' });
    const raw = await rpc(door.url, 'GetTask', { id: UNKNOWN }, { 'A2A-Version': '0.3' });
    assert.equal(raw.json.error.code, -32009);
    assert.equal(raw.json.error.data[0].metadata.requestedVersion, '0.3');
  });

  test('sendStreamingMessage with murmur frames, subscribeToTask and watchSession', async () => {
    const events = await collect(client.sendStreamingMessage({ message: textMessage('chunks') }, { murmurFrames: true }));
    assert.deepEqual(events[0], { kind: 'connection', state: 'open', attempt: 0, lastEventId: null });
    assert.equal(events[1].kind, 'task');
    const texts = events.flatMap((e) => (e.kind === 'frame' && e.frame.frame === 'text' ? [e.frame.text] : []));
    assert.deepEqual(texts, ['one ', 'two ', 'three', '']);
    assert.ok(events.some((e) => e.kind === 'frame' && e.frame.frame === 'thinking'));
    const artifact = events.find((e) => e.kind === 'artifact');
    assert.equal(artifact?.kind === 'artifact' && artifact.response.artifactUpdate.artifact.parts[0].text, 'one two three');
    const last = events.at(-2);
    assert.equal(last?.kind === 'status' && last.response.statusUpdate.status.state, 'TASK_STATE_COMPLETED');
    assert.deepEqual(events.at(-1), {
      kind: 'connection',
      state: 'closed',
      reason: 'natural-end',
      attempt: 0,
      lastEventId: last?.kind === 'status' ? last.id : null,
    });

    const napping = await client.sendText('nap', { returnImmediately: true });
    const followed = collect(client.subscribeToTask(napping.id));
    await new Promise((r) => setTimeout(r, 100));
    await client.cancelTask(napping.id);
    const sub = await followed;
    assert.equal(sub[1].kind, 'task');
    const ended = sub.at(-2);
    assert.equal(ended?.kind === 'status' && ended.response.statusUpdate.status.state, 'TASK_STATE_CANCELED');
    const closed = sub.at(-1);
    assert.equal(closed?.kind === 'connection' && closed.state, 'closed');

    const watched = await collect(client.watchSession(), (e) => e.kind === 'frame');
    const ack = watched.at(-1);
    assert.ok(ack?.kind === 'frame' && ack.frame.frame === 'connection-ack');
    assert.equal(ack.response && 'message' in ack.response && ack.response.message.metadata?.[STREAM_EXTENSION_URI] !== undefined, true);
  });

  test('stopSession cancels every live task, reports residue, and leaves the door up', async () => {
    const a = await client.sendText('nap', { returnImmediately: true });
    const b = await client.sendText('nap', { returnImmediately: true });
    const stopped = await client.stopSession();
    assert.deepEqual(stopped, { session_id: door.sessionId, canceled: [a.id, b.id].sort(), residue: [] });
    assert.deepEqual(await client.stopSession(), { session_id: door.sessionId, canceled: [], residue: [] });
    assert.equal((await client.getTask(a.id)).status.state, 'TASK_STATE_CANCELED');
  });

  test('no door at the address: ConnectionError', async () => {
    const error = await rejection(new MurmurClient('http://127.0.0.1:9', { retry: { maxRetries: 0 } }).getTask(UNKNOWN));
    assert.ok(isConnectionError(error));
  });
});

describe('MurmurClient on an authenticated door', () => {
  let door: DoorProcess;
  let tokens: { operator: string; watcher: string };
  before(async () => {
    door = await runDoor(
      makeCapsule(
        manifest({
          name: 'client-secure',
          extra: ['network:', '  authentication:', '    scheme: bearer', '    credentials:', '      watcher:', '        scopes: [GetTask]'],
        }),
        SCRIPT,
      ),
    );
    const { readFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const minted = JSON.parse(readFileSync(join(door.recordsDir, 'tokens.json'), 'utf8')).tokens as { credential: string; token: string }[];
    tokens = { operator: minted.find((t) => t.credential === 'operator')!.token, watcher: minted.find((t) => t.credential === 'watcher')!.token };
  });
  after(() => door.stop());

  test('401 without a token and with a foreign one: HttpRefusalError with the challenge', async () => {
    const anonymous = await rejection(new MurmurClient(door.url, { retry: { maxRetries: 0 } }).getTask(UNKNOWN));
    assert.ok(anonymous instanceof HttpRefusalError);
    assert.ok(isHttpRefusalError(anonymous));
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.code, 'unauthenticated');
    assert.equal(anonymous.wwwAuthenticate, 'Bearer realm="client-secure"');

    const foreign = await rejection(new MurmurClient(door.url, { token: 'mur_foreign', retry: { maxRetries: 0 } }).listTasks());
    assert.ok(isHttpRefusalError(foreign));
    assert.equal(foreign.status, 401);
    assert.equal(foreign.code, 'invalid_token');
    assert.match(foreign.wwwAuthenticate ?? '', /error="invalid_token"/);
  });

  test('403 for a token without the scope; what it reaches it gets, and sees only its own tasks', async () => {
    const watcher = new MurmurClient(door.url, { token: tokens.watcher, retry: { maxRetries: 0 } });
    const refused = await rejection(watcher.listTasks());
    assert.ok(isHttpRefusalError(refused));
    assert.equal(refused.status, 403);
    assert.equal(refused.code, 'insufficient_scope');
    assert.match(refused.wwwAuthenticate ?? '', /scope="ListTasks"/);

    const operator = new MurmurClient(door.url, { token: tokens.operator, retry: { maxRetries: 0 } });
    const task = await operator.sendText('say mine');
    // The watcher's token reaches GetTask, but the task was started by the operator: answered as unknown.
    const hidden = await rejection(watcher.getTask(task.id));
    assert.ok(hidden instanceof TaskNotFoundError);
    assert.equal(hidden.metadata.taskId, task.id);
    assert.equal((await operator.getTask(task.id)).status.state, 'TASK_STATE_COMPLETED');
  });

  test('getExtendedCard: the capsule extension with the session id, for any valid token; the public card has none', async () => {
    const extended = await new MurmurClient(door.url, { token: tokens.watcher }).getExtendedCard();
    assert.equal(extended.capabilities.extensions.find((e) => e.uri === CAPSULE_EXTENSION_URI)?.params.sessionId, door.sessionId);
    const card = await new MurmurClient(door.url).getCard();
    assert.equal(card.capabilities.extendedAgentCard, true);
    assert.equal(
      card.capabilities.extensions.find((e) => e.uri === CAPSULE_EXTENSION_URI),
      undefined,
    );
  });
});
