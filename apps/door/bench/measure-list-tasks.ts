/**
 * ListTasks over a large store: a door creates the schema, stops; the bench seeds the store directly; the door
 * reopens the session (--resume), loading every row; then the first and a deep page are timed.
 */
import path from 'node:path';
import type { BenchConfig } from './config.js';
import { TARGETS } from './config.js';
import { startDoor } from './door-process.js';
import { type PageTimes, timePages } from './list-pages.js';
import { seedTasks } from './seed-tasks.js';

export interface ListTasksMeasurement extends PageTimes {
  seeded: number;
  target: number;
  pass: boolean;
  insertMs: number;
  /** Time for the door to reopen the session with the seeded store, until it listens. */
  resumeMs: number;
}

export async function measureListTasks(home: string, capsuleDir: string, config: BenchConfig, log: (line: string) => void): Promise<ListTasksMeasurement> {
  log('ListTasks: creating a session and its schema');
  const fresh = await startDoor({ home, capsuleDir });
  await fresh.stop();
  log(`ListTasks: seeding ${config.seededTasks} tasks into ${path.join(fresh.recordsDir, 'store.db')}`);
  const seeded = await seedTasks(path.join(fresh.recordsDir, 'store.db'), config.seededTasks);
  log(`ListTasks: resuming session ${fresh.sessionId}`);
  const door = await startDoor({ home, capsuleDir, resume: fresh.sessionId });
  try {
    log(`ListTasks: timing page 1 and page ${config.pageDepth} (${config.listSamples} samples each)`);
    const pages = await timePages(door.url, seeded, config.pageSize, config.pageDepth, config.listSamples);
    return {
      ...pages,
      seeded: config.seededTasks,
      target: TARGETS.deepPageVsFirstPage,
      pass: pages.ratio <= TARGETS.deepPageVsFirstPage,
      insertMs: seeded.insertMs,
      resumeMs: door.startMs,
    };
  } finally {
    await door.stop();
  }
}
