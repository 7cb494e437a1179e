import {
  type ConsoleFormationDelegation,
  type ConsoleMemberCall,
  type ConsoleTaskSummariesPage,
  type ConsoleTaskSummariesResponse,
  RECORD_CALLS_SUFFIX,
  RECORD_FORMATION_SUFFIX,
  RECORD_IDS_MAX,
  type RecordFormationResponse,
  type RecordMemberCallsResponse,
  RECORDS_PLANE_PATH,
  TASK_STATES,
  type TaskState,
} from '@murmur/protocol';
import type { AddedDoor } from './added-doors.js';

/** How long mur console waits for a member's door before the formation view goes without it. @unit ms */
const MEMBER_DOOR_WAIT_MS = 2000;

/**
 * A formation member's records read from its door's record plane (docs/console.md, "Formations across hosts"), for a
 * member whose records folder is not on this host: the door of a member on another host. With the token of an added
 * door of that address (`mur console --door … --token-file`), if any.
 */
export class MemberDoorRecords {
  readonly #byKey: ReadonlyMap<string, AddedDoor>;

  constructor(added: readonly AddedDoor[]) {
    this.#byKey = new Map(added.map((d) => [d.key, d]));
  }

  async #get<T>(doorUrl: string, rest: string): Promise<T | null> {
    let base: URL;
    try {
      base = new URL(doorUrl);
    } catch {
      return null;
    }
    const key = `${base.hostname}:${base.port || (base.protocol === 'https:' ? 443 : 80)}`;
    const token = this.#byKey.get(key)?.token ?? null;
    try {
      const response = await fetch(`${base.origin}${RECORDS_PLANE_PATH}${rest}`, {
        headers: { accept: 'application/json', ...(token === null ? {} : { authorization: `Bearer ${token}` }) },
        signal: AbortSignal.timeout(MEMBER_DOOR_WAIT_MS),
      });
      return response.ok ? ((await response.json()) as T) : null;
    } catch {
      return null;
    }
  }

  /**
   * The calls and delegations a member made as the caller, from its door; null when the door does not answer them (a
   * door older than the delegations in that answer gives none).
   */
  async calls(
    doorUrl: string,
    member: string,
    sessionOfMember: ReadonlyMap<string, string>,
  ): Promise<{ calls: ConsoleMemberCall[]; delegations: ConsoleFormationDelegation[] } | null> {
    const body = await this.#get<RecordMemberCallsResponse>(doorUrl, RECORD_CALLS_SUFFIX);
    if (body === null || !Array.isArray(body.calls)) return null;
    return {
      calls: body.calls.map(({ calleeUrl: _, ...call }) => ({
        ...call,
        caller: member,
        calleeSessionId: sessionOfMember.get(call.callee) ?? call.calleeSessionId,
      })),
      delegations: (Array.isArray(body.delegations) ? body.delegations : []).map((d) => ({ ...d, member })),
    };
  }

  /** The formation the door's session is a member of, from its door; null when it is in none or does not answer. */
  async formation(doorUrl: string): Promise<RecordFormationResponse | null> {
    const body = await this.#get<RecordFormationResponse>(doorUrl, RECORD_FORMATION_SUFFIX);
    return body !== null && typeof body.key === 'string' && Array.isArray(body.members) ? body : null;
  }

  /** A member store's task count per state, from its door (each state's `total`; states with none left out). */
  async taskCounts(doorUrl: string, sessionId: string): Promise<Partial<Record<TaskState, number>>> {
    const counts: Partial<Record<TaskState, number>> = {};
    const totals = await Promise.all(
      TASK_STATES.map(
        async (state) =>
          [
            state,
            (await this.#get<ConsoleTaskSummariesPage>(doorUrl, `/sessions/${encodeURIComponent(sessionId)}/tasks?state=${state}&limit=1`))?.total ?? 0,
          ] as const,
      ),
    );
    for (const [state, total] of totals) if (total > 0) counts[state] = total;
    return counts;
  }

  /** The states of those tasks in the member's store, from its door (none when it does not answer). */
  async states(doorUrl: string, ids: readonly string[]): Promise<Map<string, TaskState>> {
    const states = new Map<string, TaskState>();
    for (let i = 0; i < ids.length; i += RECORD_IDS_MAX) {
      const body = await this.#get<ConsoleTaskSummariesResponse>(doorUrl, `/tasks?ids=${ids.slice(i, i + RECORD_IDS_MAX).join(',')}`);
      for (const task of body?.tasks ?? []) states.set(task.taskId, task.state);
    }
    return states;
  }
}
