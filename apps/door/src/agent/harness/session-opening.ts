import { DOOR_EXTENSION_URI } from '@murmur/protocol';
import type { TraceWriter } from '../../records/trace-writer.js';
import type { HarnessName } from '../../manifest/manifest.schema.js';
import type { ContextSessions } from './context-sessions.js';
import type { HarnessAdapter, SessionMode } from './run-plan.js';

/** How a task's first run opens its harness session: in a mode, or refused with E-RUN-036's message. */
export type Opening = { kind: 'run'; mode: SessionMode } | { kind: 'refused'; message: string };

/** E-RUN-036 (docs/harness.md, "Sessions"): the context's session cannot be resumed, and what to do about it. */
export function cannotResume(contextId: string, harness: HarnessName, sessionId: string, why: string): string {
  return (
    `E-RUN-036: context ${contextId} names ${harness} session ${sessionId}, which cannot be resumed: ${why}. ` +
    `Send the next message with forgetSession: true in its metadata under ${DOOR_EXTENSION_URI}, or run mur run --context ${contextId} --forget-session, to start the context anew`
  );
}

/** Why the entry cannot be resumed by this harness from this home, or null when it can. */
export function resumeProblem(entry: { harness: HarnessName; sessionId: string }, adapter: HarnessAdapter, home: string): string | null {
  if (entry.harness !== adapter.name) return `it was started by ${entry.harness}, and this capsule runs ${adapter.name}`;
  if (!adapter.sessionStored(home, entry.sessionId)) return "the harness's store does not hold it";
  return null;
}

/**
 * Before a task's first run (seed 000, forgetSession): a forget drops the context's session first and says so in a
 * `harness_session_forgotten` record; then the task resumes the session its context names, or starts a new one, or is
 * refused with E-RUN-036 when the named one cannot be resumed.
 */
export function openSession(
  deps: { contexts: ContextSessions; adapter: HarnessAdapter; home: string; trace: TraceWriter },
  task: { id: string; contextId: string; forgetSession: 'a2a' | 'cli' | null },
): Opening {
  const { contexts, adapter, home, trace } = deps;
  if (task.forgetSession !== null) {
    const dropped = contexts.forget(task.contextId);
    if (dropped !== null)
      trace.write('harness_session_forgotten', {
        task_id: task.id,
        context_id: task.contextId,
        harness_session_id: dropped.sessionId,
        requested_by: task.forgetSession,
      });
  }
  const entry = contexts.get(task.contextId);
  if (entry === null) return { kind: 'run', mode: { kind: 'new', id: adapter.newSessionId() } };
  const problem = resumeProblem(entry, adapter, home);
  if (problem !== null) return { kind: 'refused', message: cannotResume(task.contextId, entry.harness, entry.sessionId, problem) };
  return { kind: 'run', mode: { kind: 'resume', id: entry.sessionId } };
}
