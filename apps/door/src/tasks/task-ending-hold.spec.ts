/**
 * A task's ending held by a TaskEndingHold (seed 004, "A busy member": an offer on its way): the lifecycle stops the
 * task at once and writes CANCELED, FAILED or COMPLETED only once the hold is over; a second ending waits for the
 * same hold and finds the task ended. Real SQLite store, a hold the test releases.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, test } from 'node:test';
import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { PUBLIC_CALLER } from '../auth/caller.js';
import { manifestSchema } from '../manifest/manifest.schema.js';
import type { SessionContext } from '../session/session-context.js';
import { TraceWriter } from '../records/trace-writer.js';
import { MetaRow } from './meta.entity.js';
import { TaskRow } from './task.entity.js';
import type { TaskEndingHold } from './task-ending-hold.js';
import { TaskEvents } from './task-events.js';
import { TaskLifecycle } from './task-lifecycle.js';
import { type RunningTask, TaskQueue } from './task-queue.js';
import { TaskStore } from './task-store.js';

/** Holds a task's ending until the test releases it; counts how often it was asked. */
class TestHold implements TaskEndingHold {
  asked = 0;
  holding = true;
  release: () => void = () => undefined;
  private readonly held = new Promise<void>((resolve) => {
    this.release = resolve;
  });
  beforeEnd(): Promise<void> | null {
    this.asked += 1;
    return this.holding ? this.held : null;
  }
}

let store: TaskStore | undefined;
// One describe for the file: its hooks are its own when the specs run in one process (scripts/run-tests.mjs).
describe('task ending holds', () => {
  afterEach(async () => {
    await store?.close();
  });

  /** A queue door whose runner waits until its task is aborted, then keeps the slot until the held ending is over. */
  async function door(hold: TestHold) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'murmur-hold-'));
    const db = new DataSource({ type: 'sqlite', database: path.join(dir, 'store.db'), entities: [TaskRow, MetaRow], synchronize: true, logging: false });
    await db.initialize();
    store = new TaskStore(db);
    await store.open(Date.now());
    const events = new TaskEvents();
    const trace = new TraceWriter(dir);
    const lifecycle = new TaskLifecycle({ store, events, trace, residue: [], endingHolds: [hold] });
    const started: RunningTask[] = [];
    const runner = {
      run: (task: RunningTask) => {
        started.push(task);
        return new Promise<void>((resolve) => task.signal.addEventListener('abort', () => void lifecycle.ending(task.id).then(resolve), { once: true }));
      },
    };
    const manifest = manifestSchema.parse({ name: 'h', version: '0.1.0', lifecycle: { task_acceptance: 'queue' } });
    const queue = new TaskQueue({ session: { manifest, recordsDir: dir } as SessionContext, store, events, trace, lifecycle, runner });
    return { queue, lifecycle, store, started };
  }

  const input = (text: string) => ({
    messageId: `m-${text}`,
    contextId: null,
    text,
    images: [],
    referenceTaskIds: [],
    trust: { trust: 'trusted' as const, origin: 'a2a' as const },
  });
  const tick = () => new Promise((resolve) => setTimeout(resolve, 50));

  test('a held cancel stops the task at once and writes CANCELED only once the hold is over; the next task waits', async () => {
    const hold = new TestHold();
    const { queue, lifecycle, store, started } = await door(hold);
    const a = await queue.submit(input('a'), PUBLIC_CALLER);
    const b = await queue.submit(input('b'), PUBLIC_CALLER);
    let answered = false;
    const canceling = queue.cancel(a.id).then((row) => {
      answered = true;
      return row;
    });
    await tick();
    assert.equal(started[0].signal.aborted, true, 'the task is stopped while its ending is held');
    assert.equal(answered, false);
    assert.equal(store.row(a.id)?.state, 'TASK_STATE_WORKING', 'its ending is not written yet');
    assert.equal(started.length, 1, 'the next task waits for the run slot');
    // A second ending meanwhile waits for the same hold, and finds the task ended.
    const failing = lifecycle.fail(a.id, 'late');
    assert.equal(hold.asked, 1);
    hold.release();
    assert.equal((await canceling)?.state, 'TASK_STATE_CANCELED');
    await failing;
    assert.equal(store.row(a.id)?.state, 'TASK_STATE_CANCELED');
    await tick();
    assert.deepEqual(
      started.map((t) => t.id),
      [a.id, b.id],
    );
  });

  test('a held completion is written once the hold is over; with nothing held an ending is written at once', async () => {
    const hold = new TestHold();
    const { queue, lifecycle, store } = await door(hold);
    const a = await queue.submit(input('a'), PUBLIC_CALLER);
    const completing = lifecycle.complete(a.id, 'done');
    await tick();
    assert.equal(store.row(a.id)?.state, 'TASK_STATE_WORKING');
    hold.release();
    await completing;
    assert.equal(store.row(a.id)?.state, 'TASK_STATE_COMPLETED');
    hold.holding = false;
    const b = await queue.submit(input('b'), PUBLIC_CALLER);
    await lifecycle.fail(b.id, 'no');
    assert.equal(store.row(b.id)?.state, 'TASK_STATE_FAILED');
  });
});
