/**
 * A session of N tasks with records, for the console's views at scale (perf-views.spec.ts): a real door starts (so
 * its records folder, store schema and session_start are its own) and stops, then apps/door's seeder
 * (bench/seed-session.ts, run as a subprocess) writes N tasks into its store.db and their lives into its trace.jsonl
 * with the door's columns and trace schema. The session reads as ended; its records serve every record view.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { TaskState } from '@murmur/protocol';
import { makeCapsule } from './capsules.js';
import { type Door, type Murmur, REPO } from './fixtures.js';

const SEEDER = path.join(REPO, 'apps/door/dist/bench/seed-session-main.js');

export interface SessionOfTasks {
  /** The stopped door whose records hold the tasks (its address names the session in the console's routes). */
  door: Door;
  tasks: number;
  firstTaskId: string;
  lastTaskId: string;
  byState: Partial<Record<TaskState, number>>;
  seedMs: number;
}

export async function sessionOfTasks(murmur: Murmur, count: number): Promise<SessionOfTasks> {
  const capsule = makeCapsule({ name: `session-of-${count}`, rules: [] });
  try {
    const door = await murmur.startDoor(capsule.dir);
    await door.stop();
    const { stdout } = await promisify(execFile)(process.execPath, [SEEDER, door.recordsDir, String(count)], { maxBuffer: 1 << 20 });
    return { door, ...(JSON.parse(stdout) as Omit<SessionOfTasks, 'door'>) };
  } finally {
    capsule.remove();
  }
}
