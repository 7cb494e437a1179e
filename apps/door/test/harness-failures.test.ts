/**
 * A harness that misbehaves (docs/harness.md, "How a task runs"): a stand-in for Claude Code (`inference.harness.binary`,
 * a shell script printing its stream-json) that crashes, hangs, prints garbage or a line past the bound, reports a
 * failure or its turns used up, fills its home or the workdir past max_workdir_mib, has usage forged into its stdout by
 * a command it runs, or spends past the session's ceiling. Each task fails with a clear status, nothing it
 * started is left running, and the door goes on answering. Needs no real harness.
 */
import assert from 'node:assert/strict';
import { chmodSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { taskOf } from './support/assertions.js';
import { type DoorProcess, makeCapsule, runDoor } from './support/door-process.js';
import { harnessManifest, markedProcesses } from './support/harness-capsule.js';
import { rpc, send, waitFor } from './support/rpc.js';
import { readTrace } from './support/tasks.js';

/** Claude Code's stream-json, as the stand-in prints it; the session is the one --session-id names. */
const STAND_IN = String.raw`#!/bin/sh
session=none
while [ $# -gt 0 ]; do
  case "$1" in --session-id|--resume) session="$2"; shift ;; esac
  shift
done
prompt=$(cat)
init() { echo '{"type":"system","subtype":"init","session_id":"'"$session"'"}'; }
turn() {
  echo '{"type":"stream_event","event":{"type":"message_start","message":{"id":"msg_1","model":"stand-in","usage":{"input_tokens":'"$1"',"output_tokens":1}}}}'
  echo '{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"working"}}}'
  echo '{"type":"stream_event","event":{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":'"$2"'}}}'
  echo '{"type":"stream_event","event":{"type":"message_stop"}}'
}
case "$prompt" in
  *crash*) init; echo 'fatal: the harness fell over' >&2; exit 3 ;;
  *garbage*) init; echo 'this is not json'; sleep 60 ;;
  *hang*) init; sleep 60 & wait ;;
  *long*) init; head -c 9000000 /dev/zero | tr '\0' x; echo ;;
  *max-turns*) init; echo '{"type":"result","subtype":"error_max_turns","is_error":true,"num_turns":10}' ;;
  *api-error*) init; echo '{"type":"result","subtype":"error_during_execution","is_error":true,"errors":["API Error: 529 overloaded"]}' ;;
  *spend*) init; turn 800 500; sleep 60 ;;
  *forge*) init
    echo '{"type":"stream_event","event":{"type":"message_start","message":{"id":"msg_1","model":"stand-in","usage":{"input_tokens":10,"output_tokens":1}}}}'
    # Commands the harness runs write into the harness's own stdout, the descriptor they keep from it: usage that would
    # take tokens off the session's spend, and a second message_start lowering this turn's count.
    sh -c 'echo '"'"'{"type":"stream_event","event":{"type":"message_start","message":{"id":"msg_f","model":"stand-in","usage":{"input_tokens":-1000000,"output_tokens":-1000000}}}}'"'"''
    sh -c 'echo '"'"'{"type":"stream_event","event":{"type":"message_delta","delta":{"stop_reason":null},"usage":{"output_tokens":-7}}}'"'"''
    sh -c 'echo '"'"'{"type":"stream_event","event":{"type":"message_start","message":{"id":"msg_g","model":"stand-in","usage":{"input_tokens":3,"output_tokens":0}}}}'"'"''
    echo '{"type":"stream_event","event":{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}}'
    echo '{"type":"stream_event","event":{"type":"message_stop"}}'
    echo '{"type":"result","subtype":"success","is_error":false,"result":"forged"}' ;;
  *fill-home*) init; while :; do head -c 400000 /dev/zero >> "$HOME/fill"; echo '{"type":"system","subtype":"status"}'; sleep 0.2; done ;;
  *fill-work*) init; while :; do head -c 400000 /dev/zero >> fill; echo '{"type":"system","subtype":"status"}'; sleep 0.2; done ;;
  *) init; turn 10 2; echo '{"type":"result","subtype":"success","is_error":false,"result":"stand-in answer"}' ;;
esac
`;

let door: DoorProcess;

before(async () => {
  const capsule = makeCapsule(
    harnessManifest({
      harness: { name: 'claude-code', model: 'stand-in', base_url: 'http://127.0.0.1:9', binary: './harness/claude', idle_timeout_secs: 1 },
      inference: ['max_session_tokens: 1000'],
      extra: 'capabilities:\n  shell:\n    max_workdir_mib: 1\n',
    }),
    undefined,
    { 'harness/claude': STAND_IN },
  );
  chmodSync(path.join(capsule, 'harness/claude'), 0o755);
  door = await runDoor(capsule);
});

after(() => door?.stop());

/** Sends a task, waits for its end, and checks nothing of the session still runs and the door answers. */
async function failsWith(text: string, status: string): Promise<void> {
  const task = taskOf(await send(door.url, text));
  assert.equal(task.status.state, 'TASK_STATE_FAILED');
  assert.equal(task.status.message.parts[0].text, status);
  await waitFor(async () => (markedProcesses(door.sessionId).length === 0 ? true : undefined), 'every process of the run gone', 10_000);
  const again = await rpc(door.url, 'GetTask', { id: task.id });
  assert.equal(again.json.result.status.state, 'TASK_STATE_FAILED', 'the door still answers');
}

test('a stand-in that answers completes the task (the ground the failures below stand on)', async () => {
  const task = taskOf(await send(door.url, 'hello'));
  assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
  assert.equal(task.artifacts[0].parts[0].text, 'stand-in answer');
});

test('a harness that crashes: its exit code and the last line it wrote on stderr', () =>
  failsWith('crash', 'harness failed: claude-code: claude-code exited 3 before it answered: fatal: the harness fell over'));

test('a harness that prints garbage is stopped', () =>
  failsWith('garbage', 'harness failed: claude-code: claude-code printed something that is not its JSON stream (line 2: "this is not json")'));

test('a harness that hangs is stopped after idle_timeout_secs of silence', () =>
  failsWith('hang', 'harness failed: claude-code: claude-code printed nothing for 1 s'));

test('a line past the bound is refused, not buffered', () =>
  failsWith('long', 'harness failed: claude-code: claude-code printed a line of more than 8388608 bytes'));

test('a harness that used its turns fails the task as max_turns does on http', () =>
  failsWith('max-turns', 'max_turns exceeded: the task used all 10 inference turns'));

test('a failure the harness reports is the task’s, in its words', () => failsWith('api-error', 'harness failed: claude-code: API Error: 529 overloaded'));

test("a run that fills the harness's home past max_workdir_mib is stopped, as one that fills the workdir", async () => {
  await failsWith('fill-home', "harness failed: claude-code: the harness's home grew past capabilities.shell.max_workdir_mib (1 MiB): the door ended the run");
  await failsWith('fill-work', 'harness failed: claude-code: the workdir grew past capabilities.shell.max_workdir_mib (1 MiB): the door ended the run');
});

test('usage a command forges into the harness’s stdout (the descriptor it keeps from the harness) neither lowers the turn’s count nor takes tokens off the spend', async () => {
  const task = taskOf(await send(door.url, 'forge'));
  assert.equal(task.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(task.status));
  const turns = readTrace(door.recordsDir).filter((r) => r.type === 'inference' && r.task_id === task.id);
  assert.equal(turns.length, 1, JSON.stringify(turns));
  // The forged lines reached the door: the turn names the id of the last message_start, the forger's.
  assert.equal(turns[0]!.response_id, 'msg_g');
  assert.deepEqual(turns[0]!.usage, { input: 10, cached: 0, cacheWrite: 0, output: 2 });
});

test('the spend ceiling stops a run that passes it, then refuses the next run before it starts', async () => {
  await failsWith('spend', 'spend ceiling reached: inference.max_session_tokens is 1000 and this session has spent 1324 tokens; the harness was stopped');
  const end = readTrace(door.recordsDir).findLast((r) => r.type === 'harness_end')!;
  assert.equal(end.outcome, 'stopped');
  await failsWith(
    'hello',
    'spend ceiling reached: inference.max_session_tokens is 1000 and this session has spent 1324 tokens; the next inference call would need about 2 more',
  );
  const refused = readTrace(door.recordsDir).findLast((r) => r.type === 'spend_refused')!;
  assert.deepEqual([refused.ceiling, refused.limit, refused.spent], ['session', 1000, 1324]);
});
