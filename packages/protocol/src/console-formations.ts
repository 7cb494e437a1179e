/**
 * `mur console`'s formation view (docs/console.md, "Formations"): the formations registered on this host, their
 * members and the calls between them, assembled from the registry and each member's trace and store. Served on
 * loopback only; shared by the server and the console.
 */
import type { ConsoleDelegationStatus, MemberCallStatus, RecordSessionState } from './console-records.js';
import type { TaskState } from './task-states.js';

/** GET: the formations registered on this host, newest first. */
export const CONSOLE_FORMATIONS_PATH = '/api/formations';

/** One member call (one `call_id` of a caller's trace). Times are RFC 3339 UTC with milliseconds. */
export interface ConsoleMemberCall {
  callId: string;
  caller: string;
  callerSessionId: string;
  callerTaskId: string;
  callee: string;
  /** The session of the member called, when the formation names it. */
  calleeSessionId: string | null;
  /** The member's task, once it took the call. */
  memberTaskId: string | null;
  /**
   * That task's state in the member's store. The caller records a call's end (`member_call`) when it delivers the
   * answers, so a call whose member task has ended reads `running` until every call of its round has ended.
   */
  memberTaskState: TaskState | null;
  /** The caller's `call-member` tool call that made the call, when it could be told. */
  toolCallId: string | null;
  status: MemberCallStatus;
  /** `member_call` was written: the status is how the call ended. */
  ended: boolean;
  offers: number;
  startedAt: string;
  endedAt: string | null;
  /** From the call's start to its end (`member_call.elapsed_ms`); null while in flight. @unit ms */
  elapsedMs: number | null;
}

/** One delegation (`delegate-task`) a member's trace records (`delegation_start`, then `delegation`). */
export interface ConsoleFormationDelegation {
  delegationId: string;
  /** The member that delegated, and its session and task. */
  member: string;
  sessionId: string;
  taskId: string;
  /** The sub-capsule's bare name. */
  capsule: string;
  childSessionId: string;
  childTaskId: string;
  /** The member's `delegate-task` tool call that made it, when it could be told. */
  toolCallId: string | null;
  status: ConsoleDelegationStatus;
  ended: boolean;
  startedAt: string;
  endedAt: string | null;
  /** From `delegation_start` to `delegation`; null while running. @unit ms */
  elapsedMs: number | null;
}

export interface ConsoleFormationMember {
  member: string;
  sessionId: string;
  url: string;
  pid: number;
  /** The member that runs the launch's task. */
  entry: boolean;
  /** live: registered and running; stale: registered, its process gone; ended: unregistered. */
  session: RecordSessionState;
  /** The member store's task count per state (states with none left out; empty when the store is unreadable). */
  tasks: Partial<Record<TaskState, number>>;
  /**
   * Where the member's calls were read: `host` (its records folder on mur console's host), `door` (its door's record
   * plane, its records being elsewhere), or null when neither could be read.
   */
  records: 'host' | 'door' | null;
}

export interface ConsoleFormation {
  /** `<name>-<supervisor pid>`: two launches of one roster share a name. */
  key: string;
  name: string;
  /** The supervisor's process. */
  pid: number;
  /** live: the supervisor runs; stale: it is gone and its entry remains. */
  state: 'live' | 'stale';
  /** host: registered on mur console's host; doors: discovered from an added door's `/resources/records/formation`. */
  source: 'host' | 'doors';
  entry: string;
  rosterFile: string;
  startedAt: string;
  /** In roster order. */
  members: ConsoleFormationMember[];
  /** Every call any member's trace records, newest start first. */
  calls: ConsoleMemberCall[];
  /** Every delegation any member's trace records, newest start first. */
  delegations: ConsoleFormationDelegation[];
}

export interface ConsoleFormationsResponse {
  formations: ConsoleFormation[];
}
