/**
 * What the running-now page says of a snapshot (docs/console.md, "Running now"), in words: a task's activity, a
 * door's watch state, the tasks waiting for input across doors and the formation members that are busy.
 */
import type { ConsoleRunningSnapshot, RunningActivity, RunningDoor, RunningDoorState, RunningTask } from '@murmur/protocol';

/** "turn 3", "tool bash", "waiting for input", "queued", a status's text, or "—" before the first event. */
export function activityText(activity: RunningActivity): string {
  switch (activity.kind) {
    case 'queued':
      return 'queued';
    case 'turn':
      return `turn ${activity.turn}`;
    case 'tool':
      return activity.turn === null ? `tool ${activity.tool}` : `tool ${activity.tool} (turn ${activity.turn})`;
    case 'input':
      return 'waiting for input';
    case 'status':
      return activity.text;
    case 'unknown':
      return '—';
    default: {
      const unreachable: never = activity;
      throw new TypeError(`unknown activity ${JSON.stringify(unreachable)}`);
    }
  }
}

const DOOR_STATE_WORD: Readonly<Record<RunningDoorState, string>> = {
  connecting: 'connecting',
  live: 'live',
  'needs-token': 'needs a token',
  unreachable: 'unreachable',
  closed: 'closed',
};

export function doorStateText(state: RunningDoorState): string {
  return DOOR_STATE_WORD[state];
}

/** The door's name as the page shows it: its session's name, its formation member, or its address. */
export function doorLabel(door: RunningDoor): string {
  if (door.formation) return `${door.formation.member} (${door.formation.name})`;
  return door.name ?? door.key;
}

/** How many live tasks the door follows (every state). */
export function liveCount(door: RunningDoor): number {
  return Object.values(door.counts).reduce((sum, n) => sum + (n ?? 0), 0);
}

export interface DoorTask {
  door: RunningDoor;
  task: RunningTask;
}

/** Every shown task waiting for input, oldest first. */
export function waitingTasks(snapshot: ConsoleRunningSnapshot): DoorTask[] {
  const rows: DoorTask[] = [];
  for (const door of snapshot.doors) for (const task of door.tasks) if (task.state === 'TASK_STATE_INPUT_REQUIRED') rows.push({ door, task });
  return rows.sort((a, b) => a.task.taskId.localeCompare(b.task.taskId));
}

/** Formation members with a live task, by formation then member; each with the task shown first. */
export function busyMembers(snapshot: ConsoleRunningSnapshot): DoorTask[] {
  const rows: DoorTask[] = [];
  for (const door of snapshot.doors) if (door.formation && door.tasks.length > 0) rows.push({ door, task: door.tasks[0] });
  return rows.sort((a, b) => a.door.formation!.name.localeCompare(b.door.formation!.name) || a.door.formation!.member.localeCompare(b.door.formation!.member));
}

/** Totals across the doors: doors watched, doors live, live tasks, tasks waiting for input. */
export function totals(snapshot: ConsoleRunningSnapshot): { doors: number; live: number; tasks: number; waiting: number } {
  let live = 0;
  let tasks = 0;
  let waiting = 0;
  for (const door of snapshot.doors) {
    if (door.state === 'live') live += 1;
    tasks += liveCount(door);
    waiting += door.counts.TASK_STATE_INPUT_REQUIRED ?? 0;
  }
  return { doors: snapshot.doors.length, live, tasks, waiting };
}
