import { ARTIFACT_ID, type Artifact, formatTimestamp, type JsonObject, statusMessageId, type Task, type TaskStatus, TERMINAL_STATES } from '@murmur/protocol';
import type { TaskRow } from './task.entity.js';

const textPart = (text: string) => ({ text, mediaType: 'text/plain' });

export function artifactsOf(row: TaskRow): Artifact[] {
  const artifacts: Artifact[] = [];
  if (row.state === 'TASK_STATE_COMPLETED' && row.response !== null) {
    artifacts.push({ artifactId: ARTIFACT_ID.response, name: ARTIFACT_ID.response, parts: [textPart(row.response)] });
  }
  if (row.state === 'TASK_STATE_INPUT_REQUIRED' && row.prompt !== null) {
    artifacts.push({ artifactId: ARTIFACT_ID.prompt, name: ARTIFACT_ID.prompt, parts: [textPart(row.prompt)] });
  }
  if (row.residue && row.residue.length > 0) {
    artifacts.push({
      artifactId: 'residue',
      name: 'residue',
      parts: row.residue.map((item) => ({ data: item as unknown as JsonObject, mediaType: 'application/json' })),
    });
  }
  return artifacts;
}

export function statusOf(row: TaskRow): TaskStatus {
  const status: TaskStatus = { state: row.state, timestamp: formatTimestamp(row.statusTimestampMs) };
  if (TERMINAL_STATES.has(row.state) && row.statusText !== null) {
    status.message = {
      messageId: statusMessageId(row.id),
      contextId: row.contextId,
      taskId: row.id,
      role: 'ROLE_AGENT',
      parts: [textPart(row.statusText)],
    };
  }
  return status;
}

/** The task as GetTask answers it. `withArtifacts: false` is ListTasks without includeArtifacts. */
export function toWireTask(row: TaskRow, withArtifacts = true, emptyArtifacts = false): Task {
  const task: Task = { id: row.id, contextId: row.contextId, status: statusOf(row) };
  if (withArtifacts) {
    const artifacts = artifactsOf(row);
    if (artifacts.length > 0 || emptyArtifacts) task.artifacts = artifacts;
  }
  if (TERMINAL_STATES.has(row.state) && row.murmur && Object.keys(row.murmur).length > 0) {
    task.metadata = { murmur: row.murmur as unknown as JsonObject };
  }
  return task;
}

/**
 * JSON.stringify(toWireTask(row)), made once per version of a task: a version is a row object of its own (a change
 * writes a new row, never edits one), so a row's text never goes stale, and it goes with the row.
 */
const wireJsonByRow = new WeakMap<TaskRow, { change: number; json: string }>();

export function wireTaskJson(row: TaskRow): string {
  const held = wireJsonByRow.get(row);
  if (held && held.change === row.change) return held.json;
  const json = JSON.stringify(toWireTask(row));
  wireJsonByRow.set(row, { change: row.change, json });
  return json;
}
