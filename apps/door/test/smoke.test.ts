import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { makeCapsule, manifestYaml, runDoor, type DoorProcess } from './support/door-process.js';
import { send } from './support/rpc.js';

const SCRIPT = `
rules:
  - match: 'what is 2\\+2'
    turns:
      - answer: four
default:
  turns:
    - answer: "no rule"
`;

let door: DoorProcess;
before(async () => {
  door = await runDoor(makeCapsule(manifestYaml(), SCRIPT));
});
after(() => door.stop());

test('a blocking SendMessage answers the completed task with its response', async () => {
  const answer = await send(door.url, 'What is 2+2?');
  assert.equal(answer.status, 200);
  const task = answer.json.result.task;
  assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
  assert.deepEqual(task.artifacts, [{ artifactId: 'response', name: 'response', parts: [{ text: 'four', mediaType: 'text/plain' }] }]);
});
