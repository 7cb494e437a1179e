/**
 * A cancel racing a task's own steps never takes the door down: a task canceled while its pause for input is being
 * written ends CANCELED, and the door keeps answering (the abandoned wait for a reply is not an unhandled rejection).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type DoorProcess, makeCapsule, manifestYaml, runDoor } from './support/door-process.js';
import { rpc, send } from './support/rpc.js';

const SCRIPT = `
rules:
  - match: '^ask'
    turns:
      - ask: Which branch?
      - answer: "{{reply}}"
default:
  turns:
    - answer: alive
`;

let door: DoorProcess;
before(async () => {
  door = await runDoor(makeCapsule(manifestYaml({ acceptance: 'queue' }), SCRIPT));
});
after(() => door.stop());

test('tasks canceled the moment they start asking: each ends CANCELED or left unchanged, and the door lives on', async () => {
  for (let i = 0; i < 40; i++) {
    const id = (await send(door.url, `ask ${i}`, {}, { returnImmediately: true })).json.result.task.id as string;
    const answer = await rpc(door.url, 'CancelTask', { id });
    const state = answer.json.result?.status.state ?? answer.json.error?.data?.[0]?.metadata?.state;
    assert.ok(state === 'TASK_STATE_CANCELED', `task ${i}: ${JSON.stringify(answer.json)}`);
  }
  assert.equal(door.child.exitCode, null, `the door exited: ${door.stderr()}`);
  const alive = await send(door.url, 'hello');
  assert.equal(alive.json.result.task.status.state, 'TASK_STATE_COMPLETED');
});
