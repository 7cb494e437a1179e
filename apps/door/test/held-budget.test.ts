/**
 * The held-request budget at the door (issue 16; docs/decisions.md, "Held requests are bounded by bytes"): blocking
 * SendMessage requests hold their bodies until their tasks settle, so past 32 MiB of them a new one is answered at
 * once with the task as it stands; once held ones are answered, their bytes are free again.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type DoorProcess, makeCapsule, runDoor } from './support/door-process.js';
import { type HttpAnswer, rpc, send } from './support/rpc.js';
import { lifecycleManifest, listAll } from './support/tasks.js';

const SCRIPT = `
rules:
  - match: '^nap'
    turns:
      - sleep_ms: 30000
        answer: rested
  - match: '^doze'
    turns:
      - sleep_ms: 300
        answer: dozed
default:
  turns:
    - answer: no rule
`;

/** The held-request budget docs/reliability.md states (its unit is src/methods/held-requests.spec.ts). */
const HELD_BUDGET_BYTES = 32 * 1024 * 1024;
/** Bodies of about 7.3 MB: four fit in the 32 MiB budget (29.4 MB), a fifth does not. */
const PADDING = 'z'.repeat(7 * 1024 * 1024);

let door: DoorProcess;
before(async () => {
  door = await runDoor(makeCapsule(lifecycleManifest({ acceptance: 'queue' }), SCRIPT));
});
after(() => door.stop());

test('past 32 MiB of held request bodies a blocking SendMessage is answered at once; answered ones free their bytes', { timeout: 60_000 }, async () => {
  assert.ok(4 * PADDING.length < HELD_BUDGET_BYTES && 5 * PADDING.length > HELD_BUDGET_BYTES, 'four bodies fit in the budget, five do not');
  const answered: HttpAnswer[] = [];
  const held = Array.from({ length: 4 }, async (_, i) => {
    const answer = await send(door.url, `nap ${i} ${PADDING}`);
    answered.push(answer);
    return answer;
  });
  // Each is held once its task is stored: wait until the four are.
  for (let tries = 0; (await listAll(door.url)).length < 4; tries++) {
    assert.ok(tries < 200, 'the four tasks are stored');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const began = Date.now();
  const fifth = await send(door.url, `nap 4 ${PADDING}`);
  const task = fifth.json.result.task;
  assert.ok(Date.now() - began < 10_000, 'answered without waiting for its task');
  assert.ok(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'].includes(task.status.state), task.status.state);
  assert.equal(answered.length, 0, 'the four are still held');

  for (const t of await listAll(door.url)) await rpc(door.url, 'CancelTask', { id: t.id });
  const canceled = await Promise.all(held);
  for (const a of canceled) assert.equal(a.json.result.task.status.state, 'TASK_STATE_CANCELED');
  // The budget is free again: a blocking request of the same size is held until its task completes.
  const again = await send(door.url, `doze ${PADDING}`);
  assert.equal(again.json.result.task.status.state, 'TASK_STATE_COMPLETED');
});
