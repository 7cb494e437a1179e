/**
 * Interop: the official A2A JavaScript SDK (@a2a-js/sdk 1.x, its JSON-RPC client) drives the door unchanged —
 * send, stream, get, list, cancel, subscribe — pointed at the door's card URL (seed 000, "A2A v1.0 conformance":
 * "JSON-RPC is the one every A2A SDK speaks").
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CancelTaskRequest, GetTaskRequest, ListTasksRequest, SendMessageRequest, SubscribeToTaskRequest, type Task, TaskState } from '@a2a-js/sdk';
import { type Client, ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { TaskNotCancelableError, TaskNotFoundError } from '@a2a-js/sdk/errors';
import { manifest } from './support/client-cli.js';
import { type DoorProcess, makeCapsule, runDoor } from './support/door-process.js';
import { waitForState } from './support/rpc.js';

const SCRIPT = `
rules:
  - match: '^say (.*)$'
    turns:
      - answer: "{{match.1}}"
  - match: '^nap'
    turns:
      - sleep_ms: 30000
        answer: rested
  - match: '^chunks'
    turns:
      - text: ["one ", "two"]
default:
  turns:
    - answer: no rule
`;

let messages = 0;
function message(text: string, contextId?: string): SendMessageRequest {
  return SendMessageRequest.fromJSON({
    message: { messageId: `a2a-js-${++messages}`, role: 'ROLE_USER', parts: [{ text }], ...(contextId ? { contextId } : {}) },
  });
}

/** The text of a task's `response` artifact, as the SDK decodes parts (a `content` oneof). */
function responseOf(task: Task): string | undefined {
  const part = task.artifacts.find((a) => a.artifactId === 'response')?.parts[0];
  return part?.content?.$case === 'text' ? part.content.value : undefined;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail('expected a rejection');
}

describe('@a2a-js/sdk JSON-RPC client against the door', () => {
  let door: DoorProcess;
  let client: Client;
  const sent: { url: string; headers: Record<string, string>; method: string }[] = [];

  before(async () => {
    door = await runDoor(makeCapsule(manifest({ name: 'interop' }), SCRIPT));
    // The fetch only records what the SDK sends; it adds nothing. The SDK sets A2A-Version itself.
    const recording = (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
      const headers = Object.fromEntries(Object.entries((init?.headers ?? {}) as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v]));
      sent.push({ url: String(input), headers, method: JSON.parse(String(init?.body ?? '{}')).method });
      return fetch(input, init);
    };
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory({ fetchImpl: recording })] }),
    );
    client = await factory.createFromUrl(door.url);
  });
  after(() => door.stop());

  test('reads the card and picks the JSONRPC interface at protocol 1.0', async () => {
    assert.equal(client.protocolVersion, '1.0');
    const card = await client.getAgentCard();
    assert.equal(card.name, 'interop');
    assert.equal(card.supportedInterfaces[0].url, door.url);
    assert.equal(card.supportedInterfaces[0].protocolBinding, 'JSONRPC');
  });

  test('sendMessage, getTask and every request carrying A2A-Version: 1.0', async () => {
    const result = await client.sendMessage(message('say hello from a2a-js'));
    assert.ok('status' in result, 'a task, not a message');
    const task = result as Task;
    assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED);
    assert.equal(responseOf(task), 'hello from a2a-js');

    const got = await client.getTask(GetTaskRequest.fromJSON({ id: task.id }));
    assert.equal(got.id, task.id);
    assert.equal(got.status?.state, TaskState.TASK_STATE_COMPLETED);
    assert.equal(responseOf(got), 'hello from a2a-js');

    const missing = await rejection(client.getTask(GetTaskRequest.fromJSON({ id: 'tsk_0190ffffffffffffffffffffffffffff' })));
    assert.ok(missing instanceof TaskNotFoundError, String(missing));

    assert.ok(sent.length >= 3);
    for (const request of sent) {
      assert.equal(request.headers['a2a-version'], '1.0', `${request.method} carries A2A-Version: 1.0`);
      assert.equal(request.url.replace(/\/$/, ''), door.url);
    }
  });

  test('sendMessageStream: the task, its statuses and artifact, ending on the terminal status', async () => {
    const cases: string[] = [];
    let last: unknown;
    for await (const event of client.sendMessageStream(message('chunks'))) {
      cases.push(event.payload?.$case ?? 'none');
      last = event.payload;
    }
    assert.equal(cases[0], 'task');
    assert.ok(cases.includes('artifactUpdate'));
    assert.equal(cases.at(-1), 'statusUpdate');
    const final = last as { $case: 'statusUpdate'; value: { status?: { state: TaskState } } };
    assert.equal(final.value.status?.state, TaskState.TASK_STATE_COMPLETED);
    assert.equal(sent.at(-1)?.method, 'SendStreamingMessage');
    assert.equal(sent.at(-1)?.headers.accept, 'text/event-stream');
  });

  test('listTasks: pages through a context', async () => {
    for (let i = 0; i < 5; i++) await client.sendMessage(message(`say listed ${i}`, 'ctx-a2a-js'));
    const seen: string[] = [];
    let pageToken = '';
    let pages = 0;
    do {
      const page = await client.listTasks(ListTasksRequest.fromJSON({ contextId: 'ctx-a2a-js', pageSize: 2, pageToken }));
      seen.push(...page.tasks.map((t) => t.id));
      assert.equal(page.totalSize, 5);
      pageToken = page.nextPageToken;
      pages += 1;
    } while (pageToken !== '' && pages < 10);
    assert.equal(pages, 3);
    assert.equal(new Set(seen).size, 5);
  });

  test('cancelTask and resubscribeTask (SubscribeToTask) on a live task; a second cancel is TaskNotCancelable', async () => {
    const submitted = (await client.sendMessage(
      SendMessageRequest.fromJSON({
        message: { messageId: `a2a-js-${++messages}`, role: 'ROLE_USER', parts: [{ text: 'nap' }] },
        configuration: { returnImmediately: true },
      }),
    )) as Task;
    await waitForState(door.url, submitted.id, 'TASK_STATE_WORKING');
    const states: (TaskState | undefined)[] = [];
    const following = (async () => {
      for await (const event of client.resubscribeTask(SubscribeToTaskRequest.fromJSON({ id: submitted.id }))) {
        if (event.payload?.$case === 'task') states.push(event.payload.value.status?.state);
        if (event.payload?.$case === 'statusUpdate') states.push(event.payload.value.status?.state);
      }
    })();
    await new Promise((r) => setTimeout(r, 100));
    const canceled = await client.cancelTask(CancelTaskRequest.fromJSON({ id: submitted.id }));
    assert.equal(canceled.status?.state, TaskState.TASK_STATE_CANCELED);
    await following;
    assert.deepEqual([states[0], states.at(-1)], [TaskState.TASK_STATE_WORKING, TaskState.TASK_STATE_CANCELED]);

    const again = await rejection(client.cancelTask(CancelTaskRequest.fromJSON({ id: submitted.id })));
    assert.ok(again instanceof TaskNotCancelableError, String(again));
  });
});
