/**
 * A session of N tasks with records, for the console's views at scale (perf-views.spec.ts): a real door starts (so
 * its records folder, store schema and session_start are its own) and stops, then apps/door's seeder
 * (bench/seed-session.ts, run as a subprocess) writes N tasks into its store.db and their lives into its trace.jsonl
 * with the door's columns and trace schema. The session reads as ended; its records serve every record view. The
 * capsule folder is kept until `remove()`, so the session can be reopened (`mur run DIR --resume <session id>`, same
 * MURMUR_HOME): a task starting with "ask" then waits for input ("Which branch?").
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { TaskState } from '@murmur/protocol';
import { type Capsule, makeCapsule } from './capsules.js';
import { type Door, type Murmur, REPO } from './fixtures.js';

const SEEDER = path.join(REPO, 'apps/door/dist/bench/seed-session-main.js');

export interface SessionOfTasks {
  /** The stopped door whose records hold the tasks (its address names the session in the console's routes). */
  door: Door;
  /** The door's capsule folder, to reopen the session from. */
  capsule: Capsule;
  tasks: number;
  firstTaskId: string;
  lastTaskId: string;
  byState: Partial<Record<TaskState, number>>;
  seedMs: number;
}

export async function sessionOfTasks(murmur: Murmur, count: number): Promise<SessionOfTasks> {
  const capsule = makeCapsule({ name: `session-of-${count}`, rules: [{ match: '^ask', turns: [{ ask: 'Which branch?' }, { answer: 'on {{reply}}' }] }] });
  try {
    const door = await murmur.startDoor(capsule.dir);
    await door.stop();
    const { stdout } = await promisify(execFile)(process.execPath, [SEEDER, door.recordsDir, String(count)], { maxBuffer: 1 << 20 });
    return { door, capsule, ...(JSON.parse(stdout) as Omit<SessionOfTasks, 'door' | 'capsule'>) };
  } catch (error) {
    capsule.remove();
    throw error;
  }
}

/** One task whose record is a trace of about `spans` spans (bench/seed-trace.ts), in a stopped door's records. */
export interface TaskOfSpans {
  door: Door;
  capsule: Capsule;
  taskId: string;
  entries: number;
  spans: number;
  seedMs: number;
}

export async function taskOfSpans(murmur: Murmur, spans: number): Promise<TaskOfSpans> {
  const capsule = makeCapsule({ name: `trace-of-${spans}`, rules: [] });
  try {
    const door = await murmur.startDoor(capsule.dir);
    await door.stop();
    const { stdout } = await promisify(execFile)(process.execPath, [SEEDER, door.recordsDir, String(spans), '--trace'], { maxBuffer: 1 << 20 });
    return { door, capsule, ...(JSON.parse(stdout) as Omit<TaskOfSpans, 'door' | 'capsule'>) };
  } catch (error) {
    capsule.remove();
    throw error;
  }
}
