/** SendStreamingMessage (docs/streaming.md; seed 000 "What SendStreamingMessage writes", "Continuing a task"; seed 001 frames). */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type DoorProcess, makeCapsule, manifestYaml, runDoor } from './support/door-process.js';
import { rpc, send, waitFor, waitForState } from './support/rpc.js';
import {
  assertEnvelope,
  carrierProblem,
  dedupKey,
  DOOR_URI,
  frameOf,
  INPUT_WAIT_START,
  isStatus,
  isTerminalStatus,
  kindOf,
  openRpc,
  progressStatusProblem,
  STREAM_URI,
  type SseEvent,
  sendStreaming,
  sendStreamingStream,
  stateOf,
  streamLog,
  streamMessage,
  summarize,
  taskIdOf,
  watchSession,
} from './support/sse.js';
import { CONTEXT_ID, TASK_ID, UTC_MS } from './support/tasks.js';
import { assertRpcError } from './support/wire.js';

const SCRIPT = `
rules:
  - match: '^think'
    turns:
      - thinking: ["Two and two make four."]
        text: ["fo", "ur"]
        answer: four
  - match: '^tool'
    turns:
      - tools:
          - tool: bash
            input: { command: "echo hi; echo err >&2" }
        answer: "got {{tool.stdout}}"
  - match: '^undeclared'
    turns:
      - tools:
          - tool: python3
            input: { command: "print(1)" }
        answer: after
  - match: '^deploy'
    turns:
      - ask: Which branch?
      - answer: "deployed {{reply}}"
  - match: '^nap'
    turns:
      - sleep_ms: 30000
        answer: rested
  - match: '^slow'
    turns:
      - text: ["tick "]
        repeat: 20
        pace_ms: 50
        answer: done slowly
  - match: '^say (.*)$'
    turns:
      - answer: "{{match.1}}"
default:
  turns:
    - answer: no rule
`;

const ARTIFACT_KEYS = ['toolName', 'content', 'fenceSource', 'toolCallId', 'isError', 'durationMs', 'exitCode', 'truncated'];

let door: DoorProcess;
before(async () => {
  door = await runDoor(makeCapsule(manifestYaml({ acceptance: 'single' }), SCRIPT));
});
after(() => door.stop());

/** The live tasks of the door, so a test can prove a refusal started nothing. */
async function taskCount(): Promise<number> {
  const answer = await rpc(door.url, 'ListTasks', { pageSize: 100 });
  return answer.json.result.tasks.length;
}

function problems(events: SseEvent[], check: (e: SseEvent) => string | null): string[] {
  return events
    .map((e, i) => [i, check(e)] as const)
    .filter(([, p]) => p !== null)
    .map(([i, p]) => `#${i}: ${p}`);
}

describe('SendStreamingMessage refusals are one JSON body, before any stream', () => {
  const cases: Array<{ name: string; params: () => unknown; headers?: Record<string, string>; code: number; metadata?: Record<string, string> }> = [
    { name: 'a message without messageId', params: () => ({ message: { role: 'ROLE_USER', parts: [{ text: 'x' }] } }), code: -32602 },
    { name: 'a bare message as params', params: () => streamMessage('say x'), code: -32602 },
    {
      name: 'a push notification config',
      params: () => ({ message: streamMessage('say x'), configuration: { taskPushNotificationConfig: { url: 'https://example.com/hook' } } }),
      code: -32003,
      metadata: {},
    },
    {
      name: 'an unknown taskId',
      params: () => ({ message: streamMessage('main', { taskId: 'tsk_0123456789abcdef0123456789abcdef' }) }),
      code: -32001,
      metadata: { taskId: 'tsk_0123456789abcdef0123456789abcdef' },
    },
    { name: 'a wrong A2A-Version', params: () => ({ message: streamMessage('say x') }), headers: { 'A2A-Version': '0.3' }, code: -32009 },
    { name: 'no A2A-Version', params: () => ({ message: streamMessage('say x') }), headers: { 'A2A-Version': '' }, code: -32009 },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const before = await taskCount();
      // Activating the stream extension and naming the door URI change nothing: a refusal names no extension.
      const answer = await openRpc(door.url, 'SendStreamingMessage', c.params(), { id: 'refused-1', activate: true, headers: c.headers });
      assert.equal(answer.kind, 'json', 'a refusal is not a stream');
      if (answer.kind !== 'json') return;
      assert.match(answer.headers.get('content-type') ?? '', /^application\/json(;|$)/);
      assertRpcError(answer, { code: c.code, id: 'refused-1', metadata: c.metadata });
      assert.equal(await taskCount(), before, 'nothing started');
    });
  }

  test('a taskId naming a task that has ended: -32004 with its taskId and state', async () => {
    const done = (await send(door.url, 'say finished')).json.result.task;
    assert.equal(done.status.state, 'TASK_STATE_COMPLETED');
    const answer = await openRpc(door.url, 'SendStreamingMessage', { message: streamMessage('more', { taskId: done.id }) });
    assert.equal(answer.kind, 'json');
    if (answer.kind !== 'json') return;
    assertRpcError(answer, { code: -32004, reason: 'UNSUPPORTED_OPERATION', metadata: { taskId: done.id, state: 'TASK_STATE_COMPLETED' } });
  });
});

test('a new task rejected busy under task_acceptance single: a stream of exactly one TASK_STATE_REJECTED task event, id 0', async () => {
  const watcher = await watchSession(door.url);
  const held = (await send(door.url, 'nap', {}, { returnImmediately: true })).json.result.task;
  await waitForState(door.url, held.id, 'TASK_STATE_WORKING');
  try {
    const answer = await sendStreaming(door.url, 'say hello', { id: 41, activate: true, keepRaw: true });
    assert.equal(answer.kind, 'stream', 'the rejection is a stream, not a JSON body');
    if (answer.kind !== 'stream') return;
    const events = await answer.stream.waitForEnd();
    assert.equal(events.length, 1, summarize(events));
    const [only] = events;
    assert.equal(only.id, '0');
    assertEnvelope(only, 41);
    const task = only.data.result.task;
    assert.match(task.id, TASK_ID);
    assert.equal(task.status.state, 'TASK_STATE_REJECTED');
    assert.match(task.status.timestamp, UTC_MS);
    assert.equal(task.status.message.parts[0].text, 'task rejected: capsule is busy');
    assert.equal(answer.stream.raw, `id: 0\ndata: ${JSON.stringify(only.data)}\n\n`);
    // The rejected task is as GetTask answers it.
    assert.deepEqual((await rpc(door.url, 'GetTask', { id: task.id })).json.result, task);
    // Never sent to other streams, never buffered.
    const replay = await watchSession(door.url);
    await replay.waitForCount(1);
    await new Promise((r) => setTimeout(r, 150));
    replay.abort();
    for (const e of [...watcher.events, ...replay.events]) assert.notEqual(taskIdOf(e), task.id, 'the rejection reaches no other stream');
  } finally {
    await rpc(door.url, 'CancelTask', { id: held.id });
    watcher.abort();
  }
});

test('the normal stream without the extension: SUBMITTED task, inference turn 1 (id 0), response artifact, COMPLETED, then the end', async () => {
  const answer = await sendStreaming(door.url, 'think', { id: 'req-7' });
  assert.equal(answer.kind, 'stream');
  if (answer.kind !== 'stream') return;
  assert.equal(answer.status, 200);
  assert.equal(answer.headers.get('content-type'), 'text/event-stream');
  assert.equal(answer.headers.get('cache-control'), 'no-cache');
  assert.equal(answer.headers.get('content-length'), null);
  assert.equal(answer.headers.get('a2a-extensions'), null, 'nothing activated, nothing echoed');
  const events = await answer.stream.waitForEnd();
  assert.deepEqual(
    events.map((e) => [kindOf(e), e.id ?? null]),
    [
      ['task', null],
      ['status', '0'],
      ['artifact', '5'],
      ['status', '6'],
    ],
    summarize(events),
  );
  for (const e of events) assertEnvelope(e, 'req-7');
  for (const e of events) assert.equal(e.event, undefined, 'no event: lines');
  const opening = events[0].data.result.task;
  assert.match(opening.id, TASK_ID);
  assert.match(opening.contextId, CONTEXT_ID);
  assert.equal(opening.status.state, 'TASK_STATE_SUBMITTED');
  assert.match(opening.status.timestamp, UTC_MS);
  assert.equal(progressStatusProblem(events[1], opening.id, opening.contextId, 'TASK_STATE_WORKING', 'inference turn 1'), null);
  assert.deepEqual(events[2].data.result.artifactUpdate, {
    taskId: opening.id,
    contextId: opening.contextId,
    artifact: { artifactId: 'response', name: 'response', parts: [{ text: 'four', mediaType: 'text/plain' }] },
  });
  const final = events[3].data.result.statusUpdate;
  assert.equal(final.taskId, opening.id);
  assert.equal(final.contextId, opening.contextId);
  const stored = (await rpc(door.url, 'GetTask', { id: opening.id })).json.result;
  assert.deepEqual(final.status, stored.status, 'the terminal status is the status as GetTask shows it');
  assert.equal(stored.status.state, 'TASK_STATE_COMPLETED');
});

test('with A2A-Extensions naming the stream URI: text and thinking frames on carriers, and the header echoes the URI', async () => {
  const answer = await sendStreaming(door.url, 'think', { id: 8, headers: { 'A2A-Extensions': `https://example.com/other-ext, ${STREAM_URI}` } });
  assert.equal(answer.kind, 'stream');
  if (answer.kind !== 'stream') return;
  assert.equal(answer.headers.get('a2a-extensions'), STREAM_URI);
  const events = await answer.stream.waitForEnd();
  assert.deepEqual(
    events.map((e) => [kindOf(e), e.id ?? null]),
    [
      ['task', null],
      ['status', '0'],
      ['frame:thinking', '1'],
      ['frame:text', '2'],
      ['frame:text', '3'],
      ['frame:text', '4'],
      ['artifact', '5'],
      ['status', '6'],
    ],
    summarize(events),
  );
  const { id, contextId } = events[0].data.result.task;
  assert.deepEqual(
    problems(events.slice(2, 6), (e) => carrierProblem(e, id, contextId, 'TASK_STATE_WORKING')),
    [],
  );
  assert.deepEqual(events.slice(2, 6).map(frameOf), [
    { frame: 'thinking', text: 'Two and two make four.', final: false },
    { frame: 'text', text: 'fo', final: false },
    { frame: 'text', text: 'ur', final: false },
    { frame: 'text', text: '', final: true },
  ]);
});

test('tool frames: tool-call-started, tool-call-progress, and an artifact frame with every key in camelCase', async () => {
  const stream = await sendStreamingStream(door.url, 'tool', { activate: true });
  const events = await stream.waitForEnd();
  const { id, contextId } = events[0].data.result.task;
  const frames = events.filter((e) => frameOf(e));
  assert.deepEqual(
    problems(frames, (e) => carrierProblem(e, id, contextId, 'TASK_STATE_WORKING')),
    [],
  );
  assert.deepEqual(
    frames.map((e) => [frameOf(e).frame, e.id]),
    [
      ['tool-call-started', '1'],
      ['tool-call-progress', '2'],
      ['tool-call-progress', '3'],
      ['artifact', '1'],
      ['text', '3'],
    ],
  );
  assert.deepEqual(frameOf(frames[0]), { frame: 'tool-call-started', toolCallId: 'call_1', toolName: 'bash', input: { command: 'echo hi; echo err >&2' } });
  // stdout and stderr are two pipes: their chunks may arrive in either order.
  const progress = [frameOf(frames[1]), frameOf(frames[2])].sort((a, b) => a.stream.localeCompare(b.stream));
  assert.deepEqual(progress, [
    { frame: 'tool-call-progress', toolCallId: 'call_1', stream: 'stderr', text: 'err\n' },
    { frame: 'tool-call-progress', toolCallId: 'call_1', stream: 'stdout', text: 'hi\n' },
  ]);
  const artifact = frameOf(frames[3]).artifact;
  assert.deepEqual(Object.keys(artifact), ARTIFACT_KEYS, 'every key, in the seed order');
  assert.equal(typeof artifact.durationMs, 'number');
  assert.deepEqual(
    { ...artifact, durationMs: 0 },
    {
      toolName: 'bash',
      content: '<untrusted-content source=tool:bash>\n$ echo hi; echo err >&2\nExit code: 0\nStdout:\nhi\n\nStderr:\nerr\n\n</untrusted-content>',
      fenceSource: 'tool:bash',
      toolCallId: 'call_1',
      isError: false,
      durationMs: 0,
      exitCode: 0,
      truncated: false,
    },
  );
  // The whole answer, as the last call streamed no chunk.
  assert.deepEqual(frameOf(frames[4]), { frame: 'text', text: 'got hi', final: true });
  assert.ok(isStatus(events.at(-1)!, 'TASK_STATE_COMPLETED'));
});

test('an artifact frame of a call that never reached a tool: every key present, null where it does not apply', async () => {
  const stream = await sendStreamingStream(door.url, 'undeclared', { activate: true });
  const events = await stream.waitForEnd();
  const artifact = events.map(frameOf).find((f) => f?.frame === 'artifact')?.artifact;
  assert.ok(artifact, summarize(events));
  assert.deepEqual(Object.keys(artifact), ARTIFACT_KEYS);
  assert.equal(artifact.toolName, 'python3');
  assert.equal(artifact.fenceSource, null);
  assert.equal(artifact.isError, true);
  assert.equal(artifact.exitCode, null);
  assert.equal(artifact.truncated, false);
  assert.equal(artifact.toolCallId, 'call_1');
});

describe('A2A-Extensions on the answer', () => {
  const doorMetadata = { metadata: { [DOOR_URI]: { forgetSession: false } } };
  test('the door URI when message.metadata holds it, then the stream URI when activated', async () => {
    const stream = await sendStreamingStream(door.url, 'say a', { activate: true, message: doorMetadata });
    assert.equal(stream.headers.get('a2a-extensions'), `${DOOR_URI}, ${STREAM_URI}`);
    await stream.waitForEnd();
  });
  test('the door URI alone when the stream extension was not activated, and no frames', async () => {
    const stream = await sendStreamingStream(door.url, 'think', { message: doorMetadata });
    assert.equal(stream.headers.get('a2a-extensions'), DOOR_URI);
    const events = await stream.waitForEnd();
    assert.deepEqual(
      events.filter((e) => frameOf(e)),
      [],
      'no murmur frames',
    );
  });
  test('a header naming other extensions only activates nothing', async () => {
    const stream = await sendStreamingStream(door.url, 'think', { headers: { 'A2A-Extensions': 'https://example.com/other-ext' } });
    assert.equal(stream.headers.get('a2a-extensions'), null);
    const events = await stream.waitForEnd();
    assert.deepEqual(
      events.filter((e) => frameOf(e)),
      [],
    );
  });
});

test('a task that asks for input ends the stream after INPUT_REQUIRED; the reply streams the resumed task to COMPLETED', async () => {
  const first = await sendStreamingStream(door.url, 'deploy', { id: 'ask-1' });
  const asked = await first.waitForEnd();
  assert.deepEqual(
    asked.map((e) => [kindOf(e), stateOf(e), e.id ?? null]),
    [
      ['task', 'TASK_STATE_SUBMITTED', null],
      ['status', 'TASK_STATE_WORKING', '0'],
      ['status', 'TASK_STATE_INPUT_REQUIRED', INPUT_WAIT_START],
    ],
    summarize(asked),
  );
  const { id, contextId } = asked[0].data.result.task;
  assert.equal(progressStatusProblem(asked[2], id, contextId, 'TASK_STATE_INPUT_REQUIRED', 'Which branch?'), null);
  assert.equal((await rpc(door.url, 'GetTask', { id })).json.result.status.state, 'TASK_STATE_INPUT_REQUIRED');

  const reply = await sendStreamingStream(door.url, 'main', { id: 'ask-2', message: { taskId: id, contextId } });
  const resumed = await reply.waitForEnd();
  for (const e of resumed) assertEnvelope(e, 'ask-2');
  assert.equal(kindOf(resumed[0]), 'task');
  assert.equal(resumed[0].data.result.task.id, id);
  assert.equal(resumed[0].data.result.task.status.state, 'TASK_STATE_WORKING');
  assert.equal(resumed[0].id, undefined);
  assert.ok(
    resumed.some((e) => isStatus(e, 'TASK_STATE_WORKING', 'inference turn 2')),
    summarize(resumed),
  );
  assert.ok(isStatus(resumed.at(-1)!, 'TASK_STATE_COMPLETED'), summarize(resumed));
  assert.deepEqual(resumed.filter(isTerminalStatus).length, 1);
  assert.ok(resumed.every((e) => taskIdOf(e) === id));
  const artifact = resumed.find((e) => kindOf(e) === 'artifact')!.data.result.artifactUpdate.artifact;
  assert.deepEqual(artifact.parts, [{ text: 'deployed main', mediaType: 'text/plain' }]);
});

test('a reply with Last-Event-ID: the opening task, then the continued task’s buffered events above that id, each once', async () => {
  const first = await sendStreamingStream(door.url, 'deploy');
  const asked = await first.waitForEnd();
  const { id, contextId } = asked[0].data.result.task;
  const reply = await sendStreamingStream(door.url, 'green', { lastEventId: '0', message: { taskId: id, contextId } });
  const events = await reply.waitForEnd();
  assert.equal(kindOf(events[0]), 'task');
  assert.equal(events[0].data.result.task.status.state, 'TASK_STATE_WORKING');
  assert.ok(
    events.every((e) => taskIdOf(e) === id),
    summarize(events),
  );
  const input = events.findIndex((e) => isStatus(e, 'TASK_STATE_INPUT_REQUIRED', 'Which branch?') && e.id === INPUT_WAIT_START);
  const resumed = events.findIndex((e) => isStatus(e, 'TASK_STATE_WORKING', 'resumed') && e.id === (BigInt(INPUT_WAIT_START) + 1n).toString());
  assert.ok(input > 0 && resumed > input, summarize(events));
  assert.ok(!events.some((e) => e.id === '0'), 'a replay from 0 writes no id 0');
  assert.equal(new Set(events.map(dedupKey)).size, events.length, `no event twice:\n${summarize(events)}`);
  assert.ok(isStatus(events.at(-1)!, 'TASK_STATE_COMPLETED'));
});

test('CancelTask during a stream: the stream carries CANCELED, then ends', async () => {
  const stream = await sendStreamingStream(door.url, 'nap');
  const opening = (await stream.waitForCount(1))[0].data.result.task;
  await stream.waitForEvent((e) => isStatus(e, 'TASK_STATE_WORKING', 'inference turn 1'), 'inference turn 1');
  const canceled = await rpc(door.url, 'CancelTask', { id: opening.id });
  assert.equal(canceled.json.result.status.state, 'TASK_STATE_CANCELED');
  const events = await stream.waitForEnd(5000);
  const last = events.at(-1)!;
  assert.ok(isStatus(last, 'TASK_STATE_CANCELED'), summarize(events));
  assert.equal(last.data.result.statusUpdate.status.message.parts[0].text, 'task canceled');
  assert.deepEqual(last.data.result.statusUpdate.status, canceled.json.result.status);
});

test('the client disconnects mid-stream: the task runs on to COMPLETED, and door.log shows the stream closed', async () => {
  const closedBefore = streamLog(door.recordsDir).filter((e) => e.message === 'stream closed' && e.method === 'SendStreamingMessage').length;
  const stream = await sendStreamingStream(door.url, 'slow', { activate: true });
  const opening = (await stream.waitForCount(1))[0].data.result.task;
  await stream.waitForEvent((e) => frameOf(e)?.frame === 'text', 'a first text chunk');
  stream.abort();
  await stream.done;
  const closed = await waitFor(
    async () => {
      const entries = streamLog(door.recordsDir).filter((e) => e.message === 'stream closed' && e.method === 'SendStreamingMessage');
      return entries.length > closedBefore ? entries.at(-1) : undefined;
    },
    'the stream closed entry',
    3000,
  );
  assert.equal(typeof closed.open_streams, 'number');
  assert.equal((await rpc(door.url, 'GetTask', { id: opening.id })).json.result.status.state, 'TASK_STATE_WORKING', 'closed while the task still ran');
  const done = await waitForState(door.url, opening.id, 'TASK_STATE_COMPLETED', 5000);
  assert.equal(done.artifacts[0].parts[0].text, 'done slowly');
});
