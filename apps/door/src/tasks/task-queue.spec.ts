import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import 'reflect-metadata';
import sqlite3 from 'sqlite3';
import { DataSource } from 'typeorm';
import { PUBLIC_CALLER } from '../auth/caller.js';
import { manifestSchema } from '../manifest/manifest.schema.js';
import type { SessionContext } from '../session/session-context.js';
import { TraceWriter } from '../records/trace-writer.js';
import { MetaRow } from './meta.entity.js';
import { TaskRow } from './task.entity.js';
import { TaskEvents, type TaskStatusEvent } from './task-events.js';
import { STATUS_TEXT, TaskLifecycle } from './task-lifecycle.js';
import { type NewTask, type RunningTask, TaskQueue } from './task-queue.js';
import { TaskStore } from './task-store.js';

/** A runner that holds each task until the test ends it through the lifecycle. */
class HeldRunner {
  readonly started: RunningTask[] = [];
  private readonly releases = new Map<string, () => void>();
  run(task: RunningTask): Promise<void> {
    this.started.push(task);
    return new Promise((resolve) => {
      this.releases.set(task.id, resolve);
      task.signal.addEventListener('abort', () => resolve(), { once: true });
    });
  }
  release(id: string): void {
    this.releases.get(id)?.();
  }
}

const input = (text: string): NewTask => ({
  messageId: `m-${text}`,
  contextId: null,
  text,
  images: [],
  referenceTaskIds: [],
  trust: { trust: 'trusted', origin: 'a2a' },
});
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** Waits until `condition` holds: a queued task's start and its report are a commit or two away. */
async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

let db: DataSource;
let store: TaskStore;
let events: TaskEvents;
let lifecycle: TaskLifecycle;
let runner: HeldRunner;
let statuses: TaskStatusEvent[];

async function queueFor(acceptance: 'single' | 'queue', run?: (task: RunningTask) => Promise<void>): Promise<TaskQueue> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'murmur-queue-'));
  db = new DataSource({ type: 'sqlite', database: path.join(dir, 'store.db'), entities: [TaskRow, MetaRow], synchronize: true, logging: false });
  await db.initialize();
  store = new TaskStore(db);
  await store.open(Date.now());
  events = new TaskEvents();
  statuses = [];
  events.on('status', (e) => statuses.push(e));
  const trace = new TraceWriter(dir);
  lifecycle = new TaskLifecycle({ store, events, trace, residue: [] });
  runner = new HeldRunner();
  const manifest = manifestSchema.parse({ name: 'q', version: '0.1.0', lifecycle: { task_acceptance: acceptance } });
  const session = { manifest, recordsDir: dir } as SessionContext;
  return new TaskQueue({ session, store, events, trace, lifecycle, runner: run ? { run } : runner });
}

// One describe for the file: its hooks are its own when the specs run in one process (scripts/run-tests.mjs).
describe('the task queue', () => {
  beforeEach(() => {
    statuses = [];
  });
  afterEach(async () => {
    await store?.close();
  });

  test('queue: tasks start one at a time, in arrival order; an ending starts the next', async () => {
    const queue = await queueFor('queue');
    const a = await queue.submit(input('a'), PUBLIC_CALLER);
    const b = await queue.submit(input('b'), PUBLIC_CALLER);
    await until(() => runner.started.length === 1, 'a starts');
    await settle();
    assert.deepEqual(
      runner.started.map((t) => t.id),
      [a.id],
    );
    assert.equal(store.row(b.id)?.state, 'TASK_STATE_SUBMITTED');
    await lifecycle.complete(a.id, 'done');
    await until(() => runner.started.length === 2, 'b starts');
    assert.deepEqual(
      runner.started.map((t) => t.id),
      [a.id, b.id],
    );
    assert.equal(store.row(b.id)?.state, 'TASK_STATE_WORKING');
  });

  test('queue: a task paused for input gives up the slot', async () => {
    const queue = await queueFor('queue');
    const a = await queue.submit(input('a'), PUBLIC_CALLER);
    const b = await queue.submit(input('b'), PUBLIC_CALLER);
    await until(() => runner.started.length === 1, 'a starts');
    void lifecycle.awaitReply(a.id, 'which?').catch(() => undefined);
    await until(() => runner.started.length === 2, 'b starts');
    // b runs as soon as a's pause is issued; its start is reported only once that pause is durable and reported.
    const reported = (id: string, state: string) => statuses.findIndex((e) => e.row.id === id && e.row.state === state && e.progress === null);
    await until(() => reported(b.id, 'TASK_STATE_WORKING') >= 0, "b's start is reported");
    assert.equal(store.row(a.id)?.state, 'TASK_STATE_INPUT_REQUIRED');
    assert.ok(reported(a.id, 'TASK_STATE_INPUT_REQUIRED') >= 0 && reported(a.id, 'TASK_STATE_INPUT_REQUIRED') < reported(b.id, 'TASK_STATE_WORKING'));
    assert.deepEqual(
      runner.started.map((t) => t.id),
      [a.id, b.id],
    );
    await queue.close();
  });

  test('returnImmediately: the answer is had before the task starts (its first tool call may fork a command)', async () => {
    const queue = await queueFor('queue');
    const row = await queue.submit({ ...input('a'), answeredAtOnce: true }, PUBLIC_CALLER);
    assert.equal(row.state, 'TASK_STATE_SUBMITTED');
    assert.equal(runner.started.length, 0, 'the task started before submit answered');
    await until(() => runner.started.length === 1, 'a starts');
    runner.release(row.id);
  });

  test('single: a second task while one is live is rejected busy, with the seed’s words', async () => {
    const queue = await queueFor('single');
    await queue.submit(input('a'), PUBLIC_CALLER);
    const b = await queue.submit(input('b'), PUBLIC_CALLER);
    assert.equal(b.state, 'TASK_STATE_REJECTED');
    assert.equal(b.statusText, STATUS_TEXT.rejectedBusy);
    await queue.close();
  });

  test('a queued task canceled never runs, reads "canceled before it started", and its event says so by a flag', async () => {
    const queue = await queueFor('queue');
    const a = await queue.submit(input('a'), PUBLIC_CALLER);
    const b = await queue.submit(input('b'), PUBLIC_CALLER);
    const canceled = await queue.cancel(b.id);
    assert.equal(canceled?.state, 'TASK_STATE_CANCELED');
    assert.equal(canceled?.statusText, STATUS_TEXT.canceledQueued);
    assert.equal(statuses.find((e) => e.row.id === b.id && e.row.state === 'TASK_STATE_CANCELED')?.canceledQueued, true);
    await until(() => runner.started.length === 1, 'a starts');
    await lifecycle.complete(a.id, 'done');
    runner.release(a.id);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(
      runner.started.map((t) => t.id),
      [a.id],
    );
  });

  test('a running task canceled is aborted, and its event carries no queued flag', async () => {
    const queue = await queueFor('queue');
    const a = await queue.submit(input('a'), PUBLIC_CALLER);
    await until(() => runner.started.length === 1, 'a starts');
    const canceled = await queue.cancel(a.id);
    assert.equal(canceled?.statusText, STATUS_TEXT.canceled);
    assert.equal(runner.started[0].signal.aborted, true);
    assert.equal(statuses.find((e) => e.row.id === a.id && e.row.state === 'TASK_STATE_CANCELED')?.canceledQueued, undefined);
  });

  test('closing cancels what is live and rejects what arrives after, as closing', async () => {
    const queue = await queueFor('queue');
    const a = await queue.submit(input('a'), PUBLIC_CALLER);
    await queue.close();
    assert.equal(store.row(a.id)?.state, 'TASK_STATE_CANCELED');
    const late = await queue.submit(input('late'), PUBLIC_CALLER);
    assert.equal(late.state, 'TASK_STATE_REJECTED');
    assert.equal(late.statusText, STATUS_TEXT.rejectedClosing);
  });

  test('a task arriving at an idle slot is written SUBMITTED and WORKING in one commit, reported in that order', async () => {
    const queue = await queueFor('queue');
    const a = await queue.submit(input('a'), PUBLIC_CALLER);
    // Both versions were committed together: when submit answers, the mirror already holds WORKING, and both events went out.
    assert.equal(a.state, 'TASK_STATE_SUBMITTED');
    assert.equal(store.row(a.id)?.state, 'TASK_STATE_WORKING');
    assert.deepEqual(
      statuses.map((e) => e.row.state),
      ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'],
    );
    assert.equal(statuses[1].row.change, statuses[0].row.change + 1);
    const [stored] = (await db.query('SELECT state FROM tasks WHERE id = ?', [a.id])) as { state: string }[];
    assert.equal(stored.state, 'TASK_STATE_WORKING');
    await until(() => runner.started.length === 1, 'a runs');
    // A task arriving while a runs waits SUBMITTED.
    const b = await queue.submit(input('b'), PUBLIC_CALLER);
    assert.equal(store.row(b.id)?.state, 'TASK_STATE_SUBMITTED');
    await queue.close();
  });

  test('a task whose start is being written when the door begins closing is canceled, never run', async () => {
    const queue = await queueFor('queue');
    const submitted = queue.submit(input('a'), PUBLIC_CALLER);
    const closed = queue.close();
    const a = await submitted;
    await closed;
    assert.equal(a.state, 'TASK_STATE_CANCELED');
    assert.equal(store.row(a.id)?.statusText, STATUS_TEXT.canceled);
    await settle();
    assert.equal(runner.started.length, 0);
  });

  test('queued tasks run while their starts commit: every task reports SUBMITTED, WORKING, COMPLETED in order', async () => {
    const queue = await queueFor('queue', (task) => lifecycle.complete(task.id, `done ${task.text}`));
    const rows = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((t) => queue.submit(input(t), PUBLIC_CALLER)));
    await until(() => rows.every((r) => store.row(r.id)?.state === 'TASK_STATE_COMPLETED'), 'every task completes');
    for (const r of rows) {
      const reported = statuses.filter((e) => e.row.id === r.id && e.progress === null);
      assert.deepEqual(
        reported.map((e) => e.row.state),
        ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED'],
      );
      assert.ok(reported[0].row.change < reported[1].row.change && reported[1].row.change < reported[2].row.change);
    }
    // The queue ran them one at a time, in arrival order: each started after the previous one's ending was issued.
    const completions = statuses.filter((e) => e.row.state === 'TASK_STATE_COMPLETED').map((e) => e.row.id);
    assert.deepEqual(
      completions,
      rows.map((r) => r.id),
    );
    const stored = (await db.query('SELECT id, state, response FROM tasks ORDER BY change')) as { id: string; state: string; response: string }[];
    assert.deepEqual(
      stored.map((r) => [r.state, r.response]),
      ['a', 'b', 'c', 'd', 'e'].map((t) => ['TASK_STATE_COMPLETED', `done ${t}`]),
    );
    await queue.close();
  });

  test('a group that fails reports none of its versions: the ending is lost, the next task (run while it committed) is stopped and failed', async () => {
    const queue = await queueFor('queue');
    const a = await queue.submit(input('a'), PUBLIC_CALLER);
    const b = await queue.submit(input('b'), PUBLIC_CALLER);
    await until(() => runner.started.length === 1, 'a starts');
    const other = new sqlite3.Database(db.options.database as string);
    const exec = (sql: string) => new Promise<void>((resolve, reject) => other.exec(sql, (error) => (error ? reject(error) : resolve())));
    await exec('BEGIN IMMEDIATE');
    statuses.length = 0;
    try {
      // a's ending is issued; b takes the slot and runs while its WORKING is written in the same group, which fails busy.
      await assert.rejects(lifecycle.complete(a.id, 'done'), /the task store could not record task .*SQLITE_BUSY/);
      await until(() => runner.started.length === 2 && runner.started[1].signal.aborted, 'b is stopped');
      assert.equal(runner.started[1].id, b.id);
      await settle();
      assert.equal(statuses.length, 0, 'nothing of the failed group was reported');
      assert.equal(store.row(a.id)?.state, 'TASK_STATE_WORKING');
      assert.equal(store.row(b.id)?.state, 'TASK_STATE_SUBMITTED');
    } finally {
      await exec('ROLLBACK');
      await new Promise((resolve) => other.close(resolve));
    }
    // b, stopped, is failed once the store writes again; a's ending was lost with the group (its driver was told).
    await until(() => store.row(b.id)?.state === 'TASK_STATE_FAILED', 'b is failed');
    assert.match(store.row(b.id)?.statusText ?? '', /^driver invocation failed: the task store could not record task .*SQLITE_BUSY/);
    assert.deepEqual(
      statuses.map((e) => [e.row.id, e.row.state]),
      [[b.id, 'TASK_STATE_FAILED']],
    );
    const stored = (await db.query('SELECT id, state FROM tasks ORDER BY change')) as { id: string; state: string }[];
    assert.deepEqual(
      stored.map((r) => r.state),
      ['TASK_STATE_WORKING', 'TASK_STATE_FAILED'],
    );
    await queue.close();
  });
});
