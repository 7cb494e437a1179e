/**
 * examples/artifacts runs as a user runs it (a copy of the folder `npm run build` made ready: its WASM tool built from
 * WAT, its store, its pin): the session pulls a native tool and a skill from its project store and uses both in its
 * next turn; its declared WASM tool asks for a name through murmur:task/task; it lists what it may pull and forgets
 * what it pulled.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { ConsoleArtifactsResponse } from '@murmur/protocol';
import { taskOf } from './support/assertions.js';
import { type DoorProcess, runDoor, tempDir } from './support/door-process.js';
import { send } from './support/rpc.js';
import { readTrace } from './support/tasks.js';

const EXAMPLE = fileURLToPath(new URL('../../../../examples/artifacts/', import.meta.url));
const BUILD = fileURLToPath(new URL('../../scripts/build-artifacts.mjs', import.meta.url));

let door: DoorProcess;
before(async () => {
  // What npm run build does for the example, when it has not yet (a no-op when its outputs are current).
  execFileSync(process.execPath, [BUILD], { stdio: 'pipe' });
  const copy = path.join(tempDir('example'), 'artifacts');
  cpSync(EXAMPLE, copy, { recursive: true });
  assert.ok(existsSync(path.join(copy, 'murmur.lock')) && existsSync(path.join(copy, 'artifacts', 'greet', 'greet.wasm')));
  door = await runDoor(copy);
});
after(() => door?.stop());

const answerOf = async (text: string, extra: Record<string, unknown> = {}) => {
  const task = taskOf(await send(door.url, text, extra));
  return { task, text: task.artifacts?.[0]?.parts[0]?.text as string };
};

test('the session pulls a native tool and a skill from its project store and uses both in its next turn', async () => {
  const { text } = await answerOf('count the lines of my notes');
  assert.equal(text, 'notes.txt has 3 lines');
  const trace = readTrace(door.recordsDir);
  assert.deepEqual(
    trace.filter((r) => r.type === 'artifact_pulled').map((r) => r.artifact),
    ['demo/line-count', 'demo/release-notes'],
  );
  assert.deepEqual(trace.find((r) => r.type === 'tools_refreshed')?.added, ['line-count', 'release-notes']);
  assert.match(String(trace.find((r) => r.type === 'skill_call')?.output), /# Writing release notes/);
  assert.equal(trace.filter((r) => r.type === 'tool_call' && r.tool === 'line-count').at(-1)?.exit_code, 0);
});

test('its declared WASM tool asks whose name to greet, and greets them', async () => {
  const { task } = await answerOf('greet someone');
  assert.equal(task.status.state, 'TASK_STATE_INPUT_REQUIRED');
  assert.equal(task.artifacts[0].parts[0].text, 'Whose name shall I greet?');
  const { text } = await answerOf('Ana', { taskId: task.id });
  assert.equal(text, 'Hello, Ana!');
});

test('it cannot forget the WASM tool murmur.yaml declares', async () => {
  const { text } = await answerOf('forget the greeter');
  assert.equal(text, '<untrusted-content source=tool:remove-artifact>\nnot-removable: demo/greet is declared in murmur.yaml\n</untrusted-content>');
});

test('it lists what it may pull, and forgets the line counter', async () => {
  const listed = await answerOf('what can you pull');
  assert.match(listed.text, /"artifact":"demo\/greet".*"artifact":"demo\/line-count".*"artifact":"demo\/release-notes"/);
  const forgot = await answerOf('forget the line counter');
  assert.match(forgot.text, /\{"artifact":"demo\/line-count","removed":true\}\n<\/untrusted-content>\nline-count is gone from your tool list/);
});

test('the record lists the session’s artifacts: declared, pulled, removed, with versions and digests', async () => {
  const response = await fetch(`${door.url}/resources/records/sessions/${door.sessionId}/artifacts`);
  assert.equal(response.status, 200);
  const { sessionId, artifacts } = (await response.json()) as ConsoleArtifactsResponse;
  assert.equal(sessionId, door.sessionId);
  assert.deepEqual(
    artifacts.map((a) => [a.artifact, a.version, a.runtime, a.implementation, a.origin, a.fetchedFrom, a.removedAt === null ? 'held' : 'removed']),
    [
      ['demo/greet', '1.0.0', 'tool', 'wasm', 'declared', 'project store', 'held'],
      ['demo/line-count', '1.0.0', 'tool', 'native', 'pulled', 'project store', 'removed'],
      ['demo/release-notes', '1.0.0', 'skill', null, 'pulled', 'project store', 'held'],
    ],
  );
  for (const a of artifacts) assert.match(a.digest, /^sha256:[0-9a-f]{64}$/);
  assert.match(artifacts[1]!.taskId ?? '', /^tsk_/);
});
