/**
 * Claude Code as a capsule (docs/harness.md), the real CLI against the fake Anthropic provider (whose wire and
 * rate-limit headers the official client reads, fake-providers.test.ts): a task answered with its frames and records;
 * a shell command of its own in the sandbox; a runtime tool through the tool server; INPUT_REQUIRED and its reply; a
 * context resumed across tasks and forgotten; E-RUN-036; quota and suggested-prompt frames; session-status; cancel
 * leaving no process; an image refused; a declared artifact (a skill) through the tool server. One door serves every case.
 */
import assert from 'node:assert/strict';
import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { projectStore, publishInto, skill, writeLock } from './support/artifacts.js';
import { assertRpcError, taskOf } from './support/assertions.js';
import { type DoorProcess, makeCapsule, runDoor } from './support/door-process.js';
import { FakeProvider } from './support/fake-providers/fake-provider.js';
import { gatewayToken, harnessManifest, harnessMissing, markedProcesses } from './support/harness-capsule.js';
import { anthropicWindowHeaders, claudeModel } from './support/harness-model.js';
import { rpc, send, waitFor, waitForState } from './support/rpc.js';
import { DOOR_URI, frameOf, kindOf, sendStreamingStream } from './support/sse.js';
import { cancelTask, readTrace } from './support/tasks.js';

const missing = harnessMissing('claude-code');
const KEY = gatewayToken();
const fake = new FakeProvider('anthropic', { expectKey: KEY, respond: claudeModel, headers: anthropicWindowHeaders() });
let door: DoorProcess;

describe('Claude Code as a capsule', { skip: missing ?? false }, () => {
  before(async () => {
    await fake.start();
    process.env.MURMUR_TEST_GATEWAY_TOKEN = KEY;
    const manifest = harnessManifest({
      name: 'claude-capsule',
      harness: {
        name: 'claude-code',
        model: 'claude-sonnet-4-5',
        base_url: fake.baseUrl,
        api_key_env: 'MURMUR_TEST_GATEWAY_TOKEN',
        key_as: 'auth-token',
        prompt_suggestions: true,
      },
      extra: 'artifacts: [acme/notes]\ncapabilities:\n  request_input: true\n',
    });
    const capsule = makeCapsule(manifest);
    const notes = await publishInto(projectStore(capsule), skill('acme/notes', 'Keep notes short.'));
    writeLock(capsule, { 'acme/notes': { version: '1.0.0', digest: notes.digest, runtime: 'skill' } });
    door = await runDoor(capsule);
  });

  after(async () => {
    await door?.stop();
    await fake.close();
  });

  test('the card lists quota and suggested-prompt after artifact', async () => {
    const card = (await (await fetch(`${door.url}/.well-known/agent-card.json`)).json()) as {
      capabilities: { extensions: { uri: string; params: { frames?: string[] } }[] };
    };
    const stream = card.capabilities.extensions.find((e) => e.uri.endsWith('#murmur-stream-v1'))!;
    assert.deepEqual(stream.params.frames, [
      'text',
      'thinking',
      'tool-call-started',
      'tool-call-progress',
      'artifact',
      'quota',
      'suggested-prompt',
      'gap',
      'lagged',
      'connection-ack',
      'capsule-closed',
    ]);
  });

  test('a task answered: text frames, the response, and the harness records', async () => {
    const stream = await sendStreamingStream(door.url, 'hello there', { activate: true });
    const events = await stream.waitForEnd(60_000);
    const frames = events.filter((e) => kindOf(e).startsWith('frame:')).map(frameOf);
    assert.deepEqual(
      frames.filter((f) => f.frame === 'text').map((f) => [f.text, f.final]),
      [
        ['answer to: ', false],
        ['hello there', false],
        ['', true],
      ],
    );
    const taskId = events[0]!.data.result.task.id as string;
    const task = await waitForState(door.url, taskId, 'TASK_STATE_COMPLETED');
    assert.equal(task.artifacts[0].parts[0].text, 'answer to: hello there');
    const records = readTrace(door.recordsDir).filter((r) => r.task_id === taskId);
    const start = records.find((r) => r.type === 'harness_start')!;
    assert.equal(start.session_mode, 'new');
    assert.match(String(start.harness_session_id), /^[0-9a-f-]{36}$/);
    const inference = records.find((r) => r.type === 'inference')!;
    assert.equal(inference.driver, 'claude-code');
    assert.equal(inference.driver_kind, 'harness');
    assert.deepEqual(inference.usage, { input: 5000, cached: 4000, cacheWrite: 0, output: 10 });
    const end = records.find((r) => r.type === 'harness_end')!;
    assert.equal(end.outcome, 'answered');
    assert.equal(end.harness_session_id, start.harness_session_id);
    // The key reached the provider as Claude Code's bearer token, and only there (docs/harness.md, "The boundary").
    assert.equal(fake.requests.at(-1)!.headers.authorization, `Bearer ${KEY}`);
  });

  test('a shell command of its own runs in the sandbox, with quota and suggested-prompt frames', async () => {
    const stream = await sendStreamingStream(door.url, '[[bash:id -u; ls /root; ls /run/murmur]]', { activate: true });
    const events = await stream.waitForEnd(60_000);
    const frames = events.filter((e) => kindOf(e).startsWith('frame:')).map(frameOf);
    const started = frames.find((f) => f.frame === 'tool-call-started')!;
    assert.equal(started.toolName, 'Bash');
    const artifact = frames.find((f) => f.frame === 'artifact')!.artifact;
    assert.equal(artifact.fenceSource, null);
    assert.equal(artifact.toolCallId, started.toolCallId);
    const [uid] = artifact.content.split('\n');
    assert.ok(Number(uid) >= 1_000_000_000 || (process.getuid?.() ?? 0) !== 0, `a root door's harness runs as the session's own user, not ${uid}`);
    assert.match(artifact.content, /cannot access '\/root'/);
    assert.match(artifact.content, /harness-bin\nharness-home/);
    const quota = frames.find((f) => f.frame === 'quota')!;
    assert.deepEqual(
      quota.windows.map((w: { name: string; used: number; windowMinutes: number; state: string }) => [w.name, w.used, w.windowMinutes, w.state]),
      [
        ['five-hour', 0.42, 300, 'warning'],
        ['seven-day', 0.1, 10080, 'ok'],
      ],
    );
    assert.match(quota.windows[0].resetsAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    assert.deepEqual(
      frames.filter((f) => f.frame === 'suggested-prompt').map((f) => f.text),
      ['run the tests'],
    );
    const taskId = events[0]!.data.result.task.id as string;
    const call = readTrace(door.recordsDir).find((r) => r.type === 'tool_call' && r.task_id === taskId)!;
    assert.equal(call.tool, 'Bash');
    assert.deepEqual(call.input, { command: 'id -u; ls /root; ls /run/murmur', description: 'run it' });
  });

  test('a declared artifact is a tool of the tool server: a skill reads as its text, unfenced, and writes skill_call', async () => {
    const task = taskOf(await send(door.url, '[[tool:notes {}]]'));
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    // Its text, unfenced, as the harness received it (Claude Code adds a reminder of its own after a tool's result).
    assert.match(task.artifacts[0].parts[0].text, /^tool said: Keep notes short\.(\n\n<system-reminder>[\s\S]*)?$/);
    const records = readTrace(door.recordsDir).filter((r) => r.task_id === task.id);
    const call = records.find((r) => r.type === 'skill_call')!;
    assert.deepEqual([call.skill, call.artifact, call.status, call.exit_code], ['notes', 'acme/notes', 'passed', null]);
    assert.match(String(call.tool_call_id), /^toolu_/);
    assert.equal(records.filter((r) => r.type === 'tool_call').length, 0, 'a skill’s call is recorded as one, not as a tool’s');
  });

  test('a runtime tool through the tool server: session-status as on http, its transport: process columns', async () => {
    const answer = await send(door.url, '[[tool:session-status {}]]');
    const task = taskOf(answer);
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    const records = readTrace(door.recordsDir).filter((r) => r.task_id === task.id);
    const call = records.find((r) => r.type === 'tool_call')!;
    assert.equal(call.tool, 'session-status');
    assert.match(String(call.tool_call_id), /^toolu_/);
    assert.match(String(call.output), /^<untrusted-content source=tool:session-status>\n/);
    assert.equal(records.filter((r) => r.type === 'tool_call').length, 1, 'the stream’s own report of a tool-server call is not recorded twice');
    const status = records.find((r) => r.type === 'session_status')!.status as Record<string, unknown>;
    assert.equal(status.context, 'unknown');
    assert.deepEqual((status.turns as { cap: number }).cap, 10);
    assert.equal(typeof (status.tokens as { input: unknown }).input, 'number');
    const quota = status.quota as { name: string; used: number; resets_at: string; window_minutes: number; state: string }[];
    assert.deepEqual(
      quota.map((w) => [w.name, w.used, w.window_minutes, w.state]),
      [
        ['five-hour', 0.42, 300, 'warning'],
        ['seven-day', 0.1, 10080, 'ok'],
      ],
    );
    assert.equal(task.artifacts[0].parts[0].text.startsWith('tool said: <untrusted-content source=tool:session-status>'), true);
  });

  test('INPUT_REQUIRED through request-input, and the reply is the tool’s result', async () => {
    const asked = await send(door.url, '[[tool:request-input {"prompt":"Which branch?"}]]', {}, { returnImmediately: true });
    const taskId = taskOf(asked).id as string;
    const waiting = await waitForState(door.url, taskId, 'TASK_STATE_INPUT_REQUIRED', 60_000);
    assert.equal(waiting.artifacts[0].parts[0].text, 'Which branch?');
    const replied = await send(door.url, 'main', { taskId, contextId: waiting.contextId });
    const done = taskOf(replied);
    assert.equal(done.status.state, 'TASK_STATE_COMPLETED');
    assert.match(done.artifacts[0].parts[0].text, /^tool said: <untrusted-content source=tool:request-input>\nmain\n/);
  });

  test('one session per context: the next task resumes it, forgetSession starts anew, and the records say so', async () => {
    const contextId = 'ctx-claude-resume';
    const first = taskOf(await send(door.url, 'remember apples', { contextId }));
    const second = taskOf(await send(door.url, '[[recall]]', { contextId }));
    assert.equal(second.artifacts[0].parts[0].text, 'I remember: remember apples');
    const forgot = taskOf(await send(door.url, '[[recall]]', { contextId, metadata: { [DOOR_URI]: { forgetSession: true } }, extensions: [DOOR_URI] }));
    assert.equal(forgot.artifacts[0].parts[0].text, 'I remember: nothing');
    const after = taskOf(await send(door.url, '[[recall]]', { contextId }));
    assert.equal(after.artifacts[0].parts[0].text, 'I remember: [[recall]]');
    const records = readTrace(door.recordsDir);
    const starts = [first, second, forgot, after].map((t) => records.find((r) => r.type === 'harness_start' && r.task_id === t.id)!);
    assert.deepEqual(
      starts.map((s) => s.session_mode),
      ['new', 'resume', 'new', 'resume'],
    );
    assert.equal(starts[1].harness_session_id, starts[0].harness_session_id);
    assert.notEqual(starts[2].harness_session_id, starts[0].harness_session_id);
    assert.equal(starts[3].harness_session_id, starts[2].harness_session_id);
    const forgotten = records.filter((r) => r.type === 'harness_session_forgotten');
    assert.deepEqual(
      forgotten.map((r) => [r.task_id, r.context_id, r.harness_session_id, r.requested_by]),
      [[forgot.id, contextId, starts[0].harness_session_id, 'a2a']],
    );
  });

  test('E-RUN-036: a context whose session the harness no longer holds fails the task, and a forget answers it', async () => {
    const contextId = 'ctx-claude-lost';
    const first = taskOf(await send(door.url, 'something to lose', { contextId }));
    const sessionId = readTrace(door.recordsDir).find((r) => r.type === 'harness_start' && r.task_id === first.id)!.harness_session_id as string;
    const projects = path.join(path.dirname(door.recordsDir), 'harness', 'claude-code', '.claude', 'projects');
    for (const folder of readdirSync(projects)) rmSync(path.join(projects, folder, `${sessionId}.jsonl`), { force: true });
    const lost = taskOf(await send(door.url, 'carry on', { contextId }));
    assert.equal(lost.status.state, 'TASK_STATE_FAILED');
    assert.equal(
      lost.status.message.parts[0].text,
      `E-RUN-036: context ${contextId} names claude-code session ${sessionId}, which cannot be resumed: the harness's store does not hold it. ` +
        `Send the next message with forgetSession: true in its metadata under ${DOOR_URI}, or run mur run --context ${contextId} --forget-session, to start the context anew`,
    );
    const anew = taskOf(await send(door.url, 'carry on', { contextId, metadata: { [DOOR_URI]: { forgetSession: true } } }));
    assert.equal(anew.status.state, 'TASK_STATE_COMPLETED');
  });

  test('cancel ends the harness and everything it started: no process of the session is left', async () => {
    const started = await send(door.url, '[[bash:sleep 60]]', {}, { returnImmediately: true });
    const taskId = taskOf(started).id as string;
    await waitFor(
      async () => (readTrace(door.recordsDir).some((r) => r.type === 'inference' && r.task_id === taskId && r.stop_reason === 'tool_use') ? true : undefined),
      'the harness running sleep',
      60_000,
    );
    assert.ok(markedProcesses(door.sessionId).length > 0, 'the harness and its sleep run, marked as the session’s');
    const canceled = await cancelTask(door.url, taskId);
    assert.equal(canceled.json.result.status.state, 'TASK_STATE_CANCELED');
    await waitFor(async () => (markedProcesses(door.sessionId).length === 0 ? true : undefined), 'every process of the run gone', 10_000);
    // The run's record is written once the door has reaped the harness, which may be a moment after its last process went.
    const end = await waitFor(
      async () => readTrace(door.recordsDir).find((r) => r.type === 'harness_end' && r.task_id === taskId),
      'the run’s harness_end record',
      10_000,
    );
    assert.equal(end.outcome, 'stopped');
  });

  test('an image part is refused -32602: the harness takes no images from the door', async () => {
    const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex').toString('base64');
    const answer = await rpc(door.url, 'SendMessage', {
      message: { messageId: 'm-img', role: 'ROLE_USER', parts: [{ text: 'see' }, { raw: png, mediaType: 'image/png' }] },
    });
    assertRpcError(
      answer,
      -32602,
      'Invalid params: message.parts[1] is an image, and this capsule runs on inference.transport: process, whose harness takes no images from the door',
    );
  });

  test('forgetSession on a message naming a taskId is refused -32602, as seed 000 words it', async () => {
    const answer = await send(door.url, 'x', { taskId: 'tsk_0199', metadata: { [DOOR_URI]: { forgetSession: true } } });
    assertRpcError(
      answer,
      -32602,
      'Invalid params: forgetSession starts a new conversation, so it goes on a message that starts a task, not on one that continues task tsk_0199',
    );
  });
});

if (missing) test('Claude Code is not installed', { skip: missing }, () => undefined);
