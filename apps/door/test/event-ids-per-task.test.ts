/**
 * Every (task, kind, id) names one event of a task (seed 001, "Event ids"; docs/decisions.md). Under `queue` a task
 * resumed from TASK_STATE_INPUT_REQUIRED runs beside the next queued task: each keeps its own chunk counter, so
 * neither resets the other's and no task writes the same (kind, id) twice.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type DoorProcess, makeCapsule, manifestYaml, runDoor } from './support/door-process.js';
import { rpc, send, waitForState } from './support/rpc.js';
import { dedupKey, frameOf, isTerminalStatus, type SseReader, taskIdOf, watchSession } from './support/sse.js';

// The talker streams for about 1.2 s after its first chunk, time enough for the reply to resume the asker beside it
// on a loaded machine (at 30 ms a chunk it had ended first, once, and the tasks did not overlap).
const SCRIPT = `
rules:
  - match: '^asker'
    turns:
      - ask: which branch?
      - text: ["r1 ", "r2 ", "r3 ", "r4 ", "r5 ", "r6 "]
        pace_ms: 30
      - text: ["r7 ", "r8 "]
        pace_ms: 30
        answer: "resumed with {{reply}}"
  - match: '^talker'
    turns:
      - text: ["t1 ", "t2 ", "t3 ", "t4 ", "t5 ", "t6 "]
        pace_ms: 150
      - text: ["t7 ", "t8 ", "t9 "]
        pace_ms: 150
        answer: talked
default:
  turns:
    - answer: no rule
`;

let door: DoorProcess;
let watcher: SseReader;
before(async () => {
  door = await runDoor(makeCapsule(manifestYaml({ acceptance: 'queue' }), SCRIPT));
  watcher = await watchSession(door.url);
});
after(async () => {
  watcher?.abort();
  await door.stop();
});

test('a resumed task streaming beside the next queued one: no (task, kind, id) repeats', async () => {
  const asker = (await send(door.url, 'asker', {}, { returnImmediately: true })).json.result.task.id as string;
  await waitForState(door.url, asker, 'TASK_STATE_INPUT_REQUIRED');
  // The asker gave up the run slot: the talker starts, and the reply resumes the asker beside it.
  const talker = (await send(door.url, 'talker', {}, { returnImmediately: true })).json.result.task.id as string;
  await waitForState(door.url, talker, 'TASK_STATE_WORKING');
  await watcher.waitForEvent((e) => taskIdOf(e) === talker && frameOf(e)?.frame === 'text', 'the talker’s first chunk');
  const reply = await rpc(door.url, 'SendMessage', { message: { messageId: 'reply-1', role: 'ROLE_USER', taskId: asker, parts: [{ text: 'main' }] } });
  assert.equal(reply.json.result.task.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(reply.json));
  await waitForState(door.url, talker, 'TASK_STATE_COMPLETED');
  for (const id of [asker, talker]) await watcher.waitForEvent((e) => taskIdOf(e) === id && isTerminalStatus(e), `the end of ${id}`);

  const chunks = (id: string) => watcher.events.filter((e) => taskIdOf(e) === id && frameOf(e)?.frame === 'text');
  // The two tasks really streamed at the same time: the talker's chunks interleave with the resumed asker's.
  const order = watcher.events.filter((e) => frameOf(e)?.frame === 'text').map((e) => taskIdOf(e));
  const firstAsker = order.indexOf(asker);
  assert.ok(firstAsker >= 0 && order.lastIndexOf(talker) > firstAsker, `the tasks did not overlap: ${order.join(' ')}`);
  for (const id of [asker, talker]) {
    const keys = watcher.events.filter((e) => taskIdOf(e) === id && e.id !== undefined).map(dedupKey);
    const repeated = keys.filter((key, i) => keys.indexOf(key) !== i);
    assert.deepEqual(repeated, [], `task ${id} wrote these (task, kind, id) more than once`);
    const ids = chunks(id).map((e) => BigInt(e.id!));
    assert.ok(
      ids.every((v, i) => i === 0 || v > ids[i - 1]),
      `${id}: chunk ids rise within the task: ${ids.join(', ')}`,
    );
  }
});
