/**
 * Keeping a Task snapshot current from a stream's events, the one way: the `task` event replaces it, a plain status
 * update replaces its status, an artifact update adds or replaces (or, with `append`, extends) that artifact.
 * Murmur frames and messages leave it as it is: a carrier status holds the task's state for the frame it carries,
 * not a status of its own (docs/streaming.md, "Murmur frames").
 */
import type { Artifact, Task } from '@murmur/protocol';
import type { StreamDataEvent } from './events.js';

/**
 * The task after `event`: a new object when the event changed it, `task` itself when not (an event of another task,
 * a frame, a message). Never mutates `task`. From `null`, only a `task` event gives a task.
 */
export function applyStreamEvent(task: Task, event: StreamDataEvent): Task;
export function applyStreamEvent(task: Task | null, event: StreamDataEvent): Task | null;
export function applyStreamEvent(task: Task | null, event: StreamDataEvent): Task | null {
  if (event.kind === 'task') return task === null || event.taskId === task.id ? event.response.task : task;
  if (task === null || event.taskId !== task.id) return task;
  switch (event.kind) {
    case 'status':
      return { ...task, status: event.response.statusUpdate.status };
    case 'artifact': {
      const { artifact, append } = event.response.artifactUpdate;
      return { ...task, artifacts: upsertArtifact(task.artifacts ?? [], artifact, append === true) };
    }
    case 'message':
    case 'frame':
      return task;
    default: {
      const unreachable: never = event;
      throw new TypeError(`unknown event ${JSON.stringify(unreachable)}`);
    }
  }
}

/** Each artifact id occurs at most once in a task (seed 000, "Artifacts"): a repeat replaces it, `append` extends its parts. */
function upsertArtifact(artifacts: readonly Artifact[], artifact: Artifact, append: boolean): Artifact[] {
  const index = artifacts.findIndex((a) => a.artifactId === artifact.artifactId);
  const earlier = artifacts[index];
  if (earlier === undefined) return [...artifacts, artifact];
  const next = [...artifacts];
  next[index] = append ? { ...earlier, ...artifact, parts: [...earlier.parts, ...artifact.parts] } : artifact;
  return next;
}
