/**
 * Codex as a capsule (docs/harness.md), the real CLI against the fake OpenAI Responses provider (whose wire and
 * x-codex-* rate-limit headers the official client reads, fake-providers.test.ts): a task answered; a shell command of
 * its own in the sandbox; a runtime tool through the tool server, with the windows Codex logged; a context resumed,
 * across launches too (mur run --context), and forgotten from the CLI; E-RUN-036 for a session the other harness
 * started; the deadline's notice on a bridged tool result, and the deadline ending the session with nothing left.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { taskOf } from './support/assertions.js';
import { type DoorProcess, makeCapsule, runDoor, tempDir } from './support/door-process.js';
import { FakeProvider } from './support/fake-providers/fake-provider.js';
import { harnessManifest, harnessMissing, markedProcesses } from './support/harness-capsule.js';
import { codexModel, codexWindowHeaders } from './support/harness-model.js';
import { send, waitFor, waitForState } from './support/rpc.js';
import { frameOf, kindOf, sendStreamingStream } from './support/sse.js';
import { readTrace, runMur } from './support/tasks.js';

const missing = harnessMissing('codex');
const KEY = 'sk-codex-fake-key';
const fake = new FakeProvider('responses', { expectKey: KEY, respond: codexModel, headers: codexWindowHeaders() });
const home = tempDir('home');
let capsule: string;
let door: DoorProcess;
const doors: DoorProcess[] = [];

const manifest = (lifecycle: string[] = []) =>
  harnessManifest({
    name: 'codex-capsule',
    harness: { name: 'codex', model: 'gpt-5-codex', base_url: fake.baseUrl, api_key_env: 'MURMUR_TEST_CODEX_KEY' },
    lifecycle,
  });

describe('Codex as a capsule', { skip: missing ?? false }, () => {
  before(async () => {
    await fake.start();
    process.env.MURMUR_TEST_CODEX_KEY = KEY;
    capsule = makeCapsule(manifest());
    door = await runDoor(capsule, [], home);
    doors.push(door);
  });

  after(async () => {
    await Promise.all(doors.map((d) => d.stop()));
    await fake.close();
  });

  test('a task answered: its message as text frames, the windows Codex logged as a quota frame, the records', async () => {
    const stream = await sendStreamingStream(door.url, 'hello codex', { activate: true });
    const events = await stream.waitForEnd(60_000);
    const frames = events.filter((e) => kindOf(e).startsWith('frame:')).map(frameOf);
    assert.deepEqual(
      frames.filter((f) => f.frame === 'text').map((f) => [f.text, f.final]),
      [
        ['answer to: hello codex', false],
        ['', true],
      ],
    );
    const quota = frames.find((f) => f.frame === 'quota')!;
    assert.deepEqual(
      quota.windows.map((w: { name: string; used: number; windowMinutes: number }) => [w.name, w.used, w.windowMinutes]),
      [
        ['primary', 0.425, 300],
        ['secondary', 0.1, 10080],
      ],
    );
    const taskId = events[0]!.data.result.task.id as string;
    const task = await waitForState(door.url, taskId, 'TASK_STATE_COMPLETED');
    assert.equal(task.artifacts[0].parts[0].text, 'answer to: hello codex');
    const records = readTrace(door.recordsDir).filter((r) => r.task_id === taskId);
    const start = records.find((r) => r.type === 'harness_start')!;
    assert.equal(start.session_mode, 'new');
    assert.equal(start.harness_session_id, null, 'a new Codex thread is named only once Codex announces it');
    const end = records.find((r) => r.type === 'harness_end')!;
    assert.match(String(end.harness_session_id), /^[0-9a-f-]{36}$/);
    const inference = records.find((r) => r.type === 'inference')!;
    assert.deepEqual([inference.driver, inference.model, inference.driver_kind], ['codex', 'gpt-5-codex', 'harness']);
    assert.deepEqual(inference.usage, { input: 5000, output: 10, cached: 4000, cacheWrite: 0 });
    assert.equal(fake.requests.at(-1)!.headers.authorization, `Bearer ${KEY}`);
  });

  test('a shell command of its own runs in the sandbox: tool-call-started, an unfenced artifact with its exit code', async () => {
    const stream = await sendStreamingStream(door.url, '[[bash:id -u; ls /root]]', { activate: true });
    const events = await stream.waitForEnd(60_000);
    const frames = events.filter((e) => kindOf(e).startsWith('frame:')).map(frameOf);
    assert.equal(frames.find((f) => f.frame === 'tool-call-started')!.toolName, 'shell');
    const artifact = frames.find((f) => f.frame === 'artifact')!.artifact;
    assert.equal(artifact.fenceSource, null);
    assert.equal(artifact.exitCode, 2, "ls /root fails: the host's /root is not in the sandbox");
    assert.equal(artifact.isError, false, 'a command that ran to its end is a successful call whatever its exit');
    assert.match(artifact.content, /cannot access '\/root'/);
  });

  test('a runtime tool through the tool server: session-status with the windows Codex reported, turns closed, tokens counted', async () => {
    const task = taskOf(await send(door.url, '[[tool:session-status {}]]'));
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    const records = readTrace(door.recordsDir).filter((r) => r.task_id === task.id);
    const call = records.find((r) => r.type === 'tool_call')!;
    assert.equal(call.tool, 'session-status');
    assert.match(String(call.tool_call_id), /^call_/);
    const status = records.find((r) => r.type === 'session_status')!.status as {
      context: string;
      turns: { used: number };
      quota: { name: string; used: number }[];
    };
    assert.equal(status.context, 'unknown');
    assert.equal(status.turns.used, 0, "the run's one turn closes after its tool calls");
    assert.deepEqual(
      status.quota.map((w) => [w.name, w.used]),
      [
        ['primary', 0.425],
        ['secondary', 0.1],
      ],
    );
  });

  /** Names, in the capsule folder's context map, a session Claude Code started (as if the capsule ran it before). */
  const otherHarnessContext = (contextId: string) => {
    const state = path.join(path.dirname(door.recordsDir), 'harness');
    mkdirSync(state, { recursive: true });
    const file = path.join(state, 'contexts.json');
    const current = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>) : {};
    writeFileSync(file, JSON.stringify({ ...current, [contextId]: { harness: 'claude-code', sessionId: '0b9d3c9e-1111-4222-8333-944455556666' } }));
  };

  test('E-RUN-036: a context whose session the other harness started is refused before Codex runs', async () => {
    otherHarnessContext('ctx-other');
    const before = fake.requests.length;
    const task = taskOf(await send(door.url, 'go on', { contextId: 'ctx-other' }));
    assert.equal(task.status.state, 'TASK_STATE_FAILED');
    assert.match(
      task.status.message.parts[0].text,
      /^E-RUN-036: context ctx-other names claude-code session 0b9d3c9e-1111-4222-8333-944455556666, which cannot be resumed: it was started by claude-code, and this capsule runs codex\. /,
    );
    assert.equal(fake.requests.length, before, 'no run started');
  });

  test('a context resumes across launches (mur run --context), and --forget-session drops it', async () => {
    const contextId = 'ctx-codex-launches';
    taskOf(await send(door.url, 'remember pears', { contextId }));
    const resumed = await runDoor(capsule, ['--context', contextId, '--task', '[[recall]]'], home);
    doors.push(resumed);
    const recalled = await waitForState(resumed.url, resumed.launchTaskId!, 'TASK_STATE_COMPLETED', 60_000);
    assert.equal(recalled.artifacts[0].parts[0].text, 'I remember: remember pears');
    assert.equal(recalled.contextId, contextId);
    const forgetting = await runDoor(capsule, ['--context', contextId, '--forget-session', '--task', '[[recall]]'], home);
    doors.push(forgetting);
    const fresh = await waitForState(forgetting.url, forgetting.launchTaskId!, 'TASK_STATE_COMPLETED', 60_000);
    assert.equal(fresh.artifacts[0].parts[0].text, 'I remember: nothing');
    const forgotten = readTrace(forgetting.recordsDir).find((r) => r.type === 'harness_session_forgotten')!;
    assert.deepEqual([forgotten.context_id, forgotten.requested_by], [contextId, 'cli']);
  });

  test('mur run --context refuses E-RUN-036 at launch when the context names the other harness’s session', async () => {
    otherHarnessContext('ctx-other');
    const run = await runMur(['run', capsule, '--context', 'ctx-other', '--task', 'go'], home);
    assert.equal(run.code, 2, run.stderr);
    assert.match(
      run.stderr,
      /^mur: E-RUN-036: context ctx-other names claude-code session 0b9d3c9e-1111-4222-8333-944455556666, which cannot be resumed: it was started by claude-code, and this capsule runs codex\. /m,
    );
  });

  test('the deadline: its notice rides the bridged tool result; then it ends the session, the harness and all it started with it', async () => {
    // A door whose session ends 30 s from its start, told of it from the start (deadline_notice_secs past the whole
    // span); started here, not in before(), so the tests ahead of this one, slow on a loaded machine, cannot use its time up.
    const timed = await runDoor(makeCapsule(manifest(['deadline_notice_secs: 600'])), ['--deadline', '30s']);
    doors.push(timed);
    const noticed = taskOf(await send(timed.url, '[[tool:session-status {}]]'));
    // The model read the notice after the result's fence (Codex hands it the tool's text JSON-quoted).
    assert.match(
      noticed.artifacts[0].parts[0].text,
      /<\/untrusted-content>\\nSession deadline: the runtime ends this session at \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z, in \d+ seconds\./,
    );
    assert.equal(readTrace(timed.recordsDir).filter((r) => r.type === 'deadline_notice').length, 1);
    const sleeping = taskOf(await send(timed.url, '[[bash:sleep 120]]', {}, { returnImmediately: true }));
    await waitFor(async () => (markedProcesses(timed.sessionId).length > 0 ? true : undefined), 'the harness running', 30_000);
    const exit = await timed.exited;
    assert.equal(exit.code, 0);
    const ended = readTrace(timed.recordsDir).find((r) => r.type === 'task_end' && r.task_id === sleeping.id)!;
    assert.equal(ended.state, 'TASK_STATE_FAILED');
    assert.match(String(ended.status), /^session deadline reached: the runtime ended this session at /);
    assert.deepEqual(markedProcesses(timed.sessionId), []);
  });
});

if (missing) test('Codex is not installed', { skip: missing }, () => undefined);
