/**
 * WASM tools on a real door (docs/artifacts.md, "WebAssembly tools"): a component built from WAT, declared and
 * staged; its result and error return; a tool that loops forever stopped at capabilities.wasm.max_secs; one that
 * allocates without end stopped at capabilities.wasm.max_memory_mib; one that asks for input through
 * murmur:task/task and streams chunks through murmur:text/chunks — the reply, the time bound paused while it waits,
 * and a wait that times out.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { answerWat, CHATTY_WAT, componentOf, GREET_WAT, GROW_WAT, LOOP_WAT, projectStore, publishInto, wasmTool, writeLock } from './support/artifacts.js';
import { taskOf } from './support/assertions.js';
import { type DoorProcess, makeCapsule, runDoor } from './support/door-process.js';
import { send, waitForState } from './support/rpc.js';
import { frameOf, kindOf, taskIdOf, watchSession } from './support/sse.js';
import { readTrace } from './support/tasks.js';

const SCRIPT = `
rules:
${['fine', 'bad', 'loop', 'grow', 'greet', 'chatty']
  .map(
    (tool) => `  - match: '^call ${tool}$'
    turns:
      - tools:
          - tool: ${tool}
            input: {}
        answer: "{{tool.content}}"
`,
  )
  .join('')}default:
  turns:
    - answer: no rule
`;

const MANIFEST = `name: wasm-capsule
version: 0.1.0
lifecycle:
  task_acceptance: queue
  input_timeout_secs: 8
inference:
  driver: script
  script: script.yaml
  max_turns: 4
artifacts: [acme/fine, acme/bad, acme/loop, acme/grow, acme/greet, acme/chatty]
capabilities:
  wasm:
    max_secs: 3
    max_memory_mib: 16
`;

describe('WASM tools', () => {
  let door: DoorProcess;
  before(async () => {
    const capsule = makeCapsule(MANIFEST, SCRIPT);
    const store = projectStore(capsule);
    const pins: Record<string, { version: string; digest: string }> = {};
    const tools: [string, string][] = [
      ['acme/fine', answerWat('all fine')],
      ['acme/bad', answerWat('it went wrong', { fail: true })],
      ['acme/loop', LOOP_WAT],
      ['acme/grow', GROW_WAT],
      ['acme/greet', readFileSync(GREET_WAT, 'utf8')],
      ['acme/chatty', CHATTY_WAT],
    ];
    for (const [name, wat] of tools) pins[name] = { version: '1.0.0', digest: (await publishInto(store, wasmTool(name, await componentOf(wat)))).digest };
    writeLock(capsule, pins);
    door = await runDoor(capsule);
  });
  after(() => door.stop());

  const answerOf = async (text: string) => {
    const task = taskOf(await send(door.url, text));
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(task));
    return task.artifacts[0].parts[0].text as string;
  };
  const lastCall = (tool: string) =>
    readTrace(door.recordsDir)
      .filter((r) => r.type === 'tool_call' && r.tool === tool)
      .at(-1);

  test('declared WASM tools are staged and in the tool list, each with artifact_staged', () => {
    const trace = readTrace(door.recordsDir);
    assert.deepEqual(trace.find((r) => r.type === 'session_start')?.tools_declared, ['fine', 'bad', 'loop', 'grow', 'greet', 'chatty', 'session-status']);
    const staged = trace.filter((r) => r.type === 'artifact_staged');
    assert.deepEqual(
      staged.map((r) => [r.artifact, r.implementation, r.fetched_from]),
      [
        ['acme/fine', 'wasm', 'project store'],
        ['acme/bad', 'wasm', 'project store'],
        ['acme/loop', 'wasm', 'project store'],
        ['acme/grow', 'wasm', 'project store'],
        ['acme/greet', 'wasm', 'project store'],
        ['acme/chatty', 'wasm', 'project store'],
      ],
    );
    assert.ok(trace.findIndex((r) => r.type === 'artifact_staged') < trace.findIndex((r) => r.type === 'session_start'));
  });

  test('ok(text) passes with the text, fenced, exit_code null; err(text) fails with it', async () => {
    assert.equal(await answerOf('call fine'), '<untrusted-content source=tool:fine>\nall fine\n</untrusted-content>');
    assert.deepEqual([lastCall('fine')?.status, lastCall('fine')?.exit_code], ['passed', null]);
    assert.equal(await answerOf('call bad'), '<untrusted-content source=tool:bad>\nit went wrong\n</untrusted-content>');
    assert.equal(lastCall('bad')?.status, 'error');
  });

  test('a tool that loops forever is stopped at capabilities.wasm.max_secs, and the door goes on', async () => {
    const started = Date.now();
    assert.equal(
      await answerOf('call loop'),
      '<untrusted-content source=tool:loop>\nthe WASM tool ran past capabilities.wasm.max_secs (3 s) and was stopped\n</untrusted-content>',
    );
    const took = Date.now() - started;
    assert.ok(took >= 1900 && took < 8000, `took ${took} ms`);
    assert.equal(lastCall('loop')?.status, 'error');
    assert.equal(await answerOf('call fine'), '<untrusted-content source=tool:fine>\nall fine\n</untrusted-content>');
  });

  test('a tool that allocates without end reaches capabilities.wasm.max_memory_mib and traps, well before its time bound', async () => {
    const started = Date.now();
    const answer = await answerOf('call grow');
    assert.match(
      answer,
      /^<untrusted-content source=tool:grow>\nthe WASM tool trapped: .*unreachable.*\n<\/untrusted-content>\nnote: the WASM tool's memory was at 15 MiB of capabilities\.wasm\.max_memory_mib \(16 MiB\) when it trapped: a grow past the bound fails$/,
    );
    assert.ok(Date.now() - started < 1900, 'the bound, not the clock, ended it');
    const rss = Number(readFileSync(`/proc/${door.pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)?.[1]) / 1024;
    assert.ok(rss < 400, `the door's resident memory stays bounded: ${rss} MiB`);
  });

  test('a tool that streams without end traps once its chunks pass 4 MiB', async () => {
    assert.equal(
      await answerOf('call chatty'),
      '<untrusted-content source=tool:chatty>\nthe WASM tool trapped: the WASM tool streamed more than 4194304 bytes of chunks\n</untrusted-content>',
    );
  });

  test('a tool that asks for input: input-required with its prompt, chunks as text and thinking frames, the reply its result; the wait does not count against max_secs', async () => {
    const watch = await watchSession(door.url);
    const asked = taskOf(await send(door.url, 'call greet', {}, { returnImmediately: true }));
    const waiting = await waitForState(door.url, asked.id, 'TASK_STATE_INPUT_REQUIRED');
    assert.equal(waiting.artifacts[0].parts[0].text, 'Whose name shall I greet?');
    // Longer than max_secs (3 s: a loaded machine's worker start and run stay within it; the reply is due within 8 s): the time bound is paused while the task waits for its reply.
    await new Promise((r) => setTimeout(r, 3500));
    const done = taskOf(await send(door.url, 'Ana', { taskId: asked.id }));
    assert.equal(done.status.state, 'TASK_STATE_COMPLETED');
    assert.equal(done.artifacts[0].parts[0].text, '<untrusted-content source=tool:greet>\nHello, Ana!\n</untrusted-content>');
    await watch.waitForEvent((e) => kindOf(e) === 'frame:artifact' && taskIdOf(e) === asked.id, 'the artifact frame');
    const frames = watch.events
      .filter((e) => taskIdOf(e) === asked.id && (kindOf(e) === 'frame:text' || kindOf(e) === 'frame:thinking'))
      .map((e) => [frameOf(e).frame, frameOf(e).text]);
    assert.deepEqual(frames.slice(0, 4), [
      ['thinking', 'looking for a name to greet'],
      ['text', 'Hello, '],
      ['text', 'Ana'],
      ['text', '!'],
    ]);
    watch.abort();
  });

  test('a wait for input that times out: request-input returns err, and the call fails with it', async () => {
    const asked = taskOf(await send(door.url, 'call greet', {}, { returnImmediately: true }));
    const ended = await waitForState(door.url, asked.id, 'TASK_STATE_COMPLETED', 30_000);
    assert.equal(
      ended.artifacts[0].parts[0].text,
      '<untrusted-content source=tool:greet>\nno reply came within 8s: the question was withdrawn; go on without the answer\n</untrusted-content>',
    );
    assert.equal(lastCall('greet')?.status, 'error');
  });
});
