import type { ConsoleDelegationStatus, ConsoleFormationDelegation } from '@murmur/protocol';
import type { TraceLine } from '../records/trace-schema.js';

/** One delegation as the delegating task's trace records it (docs/console.md, "Formations"). */
export interface TracedDelegation {
  delegationId: string;
  taskId: string;
  capsule: string;
  childSessionId: string;
  childTaskId: string;
  toolCallId: string | null;
  status: ConsoleDelegationStatus;
  ended: boolean;
  startedMs: number;
  endedMs: number | null;
}

const DELEGATION_ID_IN_OUTPUT = /"delegation_id":"(dlg_[0-9a-f]+)"/;

/**
 * The delegations in one task's trace records (written in order): `delegation_start` opens one, `delegation` ends it;
 * each is linked to the `delegate-task` tool call whose output names its `delegation_id` (the runtime's own data; the
 * start is written while that tool call runs, so the tool call's record comes after it). Other records are not read.
 */
export function delegationsOf(taskId: string, records: readonly TraceLine[]): TracedDelegation[] {
  const delegations = new Map<string, TracedDelegation>();
  for (const record of records) {
    const ms = Date.parse(record.ts);
    if (Number.isNaN(ms)) continue;
    if (record.type === 'delegation_start') {
      delegations.set(record.delegation_id, {
        delegationId: record.delegation_id,
        taskId,
        capsule: record.capsule,
        childSessionId: record.child_session_id,
        childTaskId: record.child_task_id,
        toolCallId: null,
        status: 'running',
        ended: false,
        startedMs: ms,
        endedMs: null,
      });
    } else if (record.type === 'delegation') {
      const d = delegations.get(record.delegation_id);
      if (!d) continue;
      d.status = record.status;
      d.ended = true;
      d.endedMs = ms;
    } else if (record.type === 'tool_call' && record.tool === 'delegate-task') {
      const id = DELEGATION_ID_IN_OUTPUT.exec(record.output)?.[1];
      const d = id === undefined ? undefined : delegations.get(id);
      if (d) d.toolCallId = record.tool_call_id;
    }
  }
  return [...delegations.values()];
}

/** A traced delegation in the formation view's shape (docs/console.md, "Formations"), made by `member` of `sessionId`. */
export function consoleDelegation(d: TracedDelegation, by: { member: string; sessionId: string }): ConsoleFormationDelegation {
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    delegationId: d.delegationId,
    member: by.member,
    sessionId: by.sessionId,
    taskId: d.taskId,
    capsule: d.capsule,
    childSessionId: d.childSessionId,
    childTaskId: d.childTaskId,
    toolCallId: d.toolCallId,
    status: d.status,
    ended: d.ended,
    startedAt: iso(d.startedMs),
    endedAt: d.endedMs === null ? null : iso(d.endedMs),
    elapsedMs: d.endedMs === null ? null : d.endedMs - d.startedMs,
  };
}
