import { parseArgs } from 'node:util';
import { isA2AError } from '@murmur/client';
import { listSessions, type SessionEntry } from '../session/session-registry.js';
import {
  clientFor,
  type CommandIo,
  DoorFailure,
  inPlainWords,
  withUsage,
  residueLine,
  residueOf,
  statePiece,
  statusText,
  tokenFor,
} from './client-command-support.js';
import { UsageError } from './usage-error.js';
import { findSession } from './session-lookup.js';

export const CANCEL_USAGE = `usage: mur cancel TASK [--session S] [--token T] [--json]

Cancels a task (CancelTask) and prints its final state and what it leaves running. Without --session,
asks each running session on this host which one holds the task. --json prints one JSON object:
{"sessionId", "task": <the Task CancelTask answered>, "residue": [<residue items>]}.`;

/** Probe timeout when mur cancel asks every running session for the task. */
const PROBE_TIMEOUT_MS = 3000;

/** The running session that holds `taskId`: the only one running, or the one whose GetTask answers it. */
async function sessionHolding(taskId: string, token: string | undefined): Promise<SessionEntry> {
  const running = listSessions().filter((s) => !s.stale);
  if (running.length === 0) throw new UsageError('no session is running on this host (mur run starts one)');
  if (running.length === 1) return running[0];
  const unreachable: string[] = [];
  const answers = await Promise.all(
    running.map(async (session) => {
      try {
        await clientFor(session.url, tokenFor(session, token)).getTask(taskId, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS), maxRetries: 0 });
        return session;
      } catch (error) {
        if (!isA2AError(error, 'TaskNotFound'))
          unreachable.push(`  ${session.sessionId}: ${inPlainWords(error, { url: session.url, label: session.sessionId })}`);
        return null;
      }
    }),
  );
  const holding = answers.filter((s): s is SessionEntry & { stale: boolean } => s !== null);
  if (holding.length === 1) return holding[0];
  if (holding.length > 1) throw new UsageError(`${holding.length} sessions answer for ${taskId}; name one with --session`);
  const asked = running.length - unreachable.length;
  const detail = unreachable.length > 0 ? `; these could not be asked:\n${unreachable.join('\n')}` : '';
  throw new DoorFailure(`no task ${taskId} in any of the ${asked} running sessions asked${detail}`);
}

/** mur cancel: CancelTask, then the task's final state and each residue item (seed 000, "Residue items"). */
export async function cancel(argv: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = withUsage(CANCEL_USAGE, () =>
    parseArgs({ args: argv, allowPositionals: true, options: { session: { type: 'string' }, token: { type: 'string' }, json: { type: 'boolean' } } }),
  );
  if (positionals.length !== 1) throw new UsageError(`mur cancel takes one task id\n${CANCEL_USAGE}`);
  const taskId = positionals[0];
  if (taskId.trim() === '') throw new UsageError(`mur cancel takes a task id such as tsk_0199…\n${CANCEL_USAGE}`);
  const session = values.session !== undefined ? findSession(values.session) : await sessionHolding(taskId, values.token);
  const target = { url: session.url, label: session.sessionId };
  try {
    const task = await clientFor(session.url, tokenFor(session, values.token)).cancelTask(taskId);
    if (values.json) {
      io.out(JSON.stringify({ sessionId: session.sessionId, task, residue: residueOf(task) }));
      return 0;
    }
    const message = statusText(task);
    io.out([`${task.id} `, statePiece(task.status.state), message ? `: ${message}` : '']);
    for (const item of residueOf(task)) io.out(residueLine(item));
    return 0;
  } catch (error) {
    if (isA2AError(error, 'TaskNotFound')) throw new DoorFailure(`no task ${taskId} in session ${session.sessionId}`);
    // -32002: the task had already ended; the door's message names the state it ended in.
    if (isA2AError(error, 'TaskNotCancelable')) throw new DoorFailure(error.message);
    throw new DoorFailure(`cannot cancel ${taskId} in session ${session.sessionId}: ${inPlainWords(error, target)}`);
  }
}
