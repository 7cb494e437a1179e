/**
 * A store that cannot write: the door answers -32603 naming the failure, starts nothing, loses nothing already
 * written, and serves again once the store can write (seed 000, Errors: -32603 "A request the door accepted and
 * could not hand to the session"; DESIGN: "a store failure answers -32603 and loses nothing already written").
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import sqlite3 from 'sqlite3';
import { type DoorProcess, makeCapsule, manifestYaml, runDoor } from './support/door-process.js';
import { rpc, send } from './support/rpc.js';

const SCRIPT = `
rules:
  - match: '^say (.*)$'
    turns:
      - answer: "{{match.1}}"
default:
  turns:
    - answer: no rule
`;

let door: DoorProcess;
before(async () => {
  door = await runDoor(makeCapsule(manifestYaml({ acceptance: 'queue' }), SCRIPT));
});
after(() => door.stop());

function exec(db: sqlite3.Database, sql: string): Promise<void> {
  return new Promise((resolve, reject) => db.exec(sql, (error) => (error ? reject(error) : resolve())));
}

test('while another process holds the write lock, SendMessage answers -32603; the stored tasks stay; after it, tasks run again', async () => {
  const before = await send(door.url, 'say kept');
  const kept = before.json.result.task;
  assert.equal(kept.status.state, 'TASK_STATE_COMPLETED');
  const totalBefore = (await rpc(door.url, 'ListTasks', {})).json.result.totalSize;

  // A second connection takes SQLite's write lock and holds it: every write the door tries now fails busy.
  const db = new sqlite3.Database(path.join(door.recordsDir, 'store.db'));
  await exec(db, 'BEGIN IMMEDIATE');
  try {
    const refused = await send(door.url, 'say lost');
    assert.equal(refused.status, 200);
    assert.equal(refused.json.error.code, -32603);
    assert.match(refused.json.error.message, /^Internal error: the task store could not record task tsk_[0-9a-f]{32}: .*SQLITE_BUSY/);
    assert.equal(refused.json.error.data, undefined, 'a standard JSON-RPC error carries no data');
    // Reads are served from what was written.
    const read = await rpc(door.url, 'GetTask', { id: kept.id });
    assert.deepEqual(read.json.result, kept);
  } finally {
    await exec(db, 'ROLLBACK');
    await new Promise((resolve) => db.close(resolve));
  }

  const listed = (await rpc(door.url, 'ListTasks', {})).json.result;
  assert.equal(listed.totalSize, totalBefore, 'the refused message started no task');
  assert.deepEqual(
    listed.tasks.find((t: { id: string }) => t.id === kept.id),
    { id: kept.id, contextId: kept.contextId, status: kept.status },
  );
  const after = await send(door.url, 'say again');
  assert.equal(after.json.result.task.status.state, 'TASK_STATE_COMPLETED');
  assert.equal(after.json.result.task.artifacts[0].parts[0].text, 'again');
});
