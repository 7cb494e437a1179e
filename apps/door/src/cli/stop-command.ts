import { parseArgs } from 'node:util';
import type { AgentCard, StopSessionResult } from '@murmur/protocol';
import { checkCard, clientFor, type CommandIo, DoorFailure, fetchCard, inPlainWords, withUsage, residueLine, tokenFor } from './client-command-support.js';
import { UsageError } from './usage-error.js';
import { type FormationEntry, isAlive, listFormations } from '../session/session-registry.js';
import { findSession } from './session-lookup.js';

export const STOP_USAGE = `usage: mur stop [SESSION|FORMATION] [--token T] [--json]

With a formation's name (mur run --roster), stops the formation as a whole: its supervisor stops every member,
callers first, as SIGTERM stops mur run, and exits. --json prints {"formation", "pid", "members": [<session ids>], "stopped": true}.

Cancels every live task of a running session (murmur.StopSession), prints what it canceled and what the
session leaves running, then sends its process SIGTERM and waits up to 10 s for it to exit. --json prints
one JSON object once the process has exited: {"sessionId", "pid", "canceled": [<task ids>],
"residue": [<residue items>], "stopped": true}.`;

/** How long mur stop waits for the process to exit after SIGTERM. */
export const STOP_WAIT_MS = 10_000;

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

/**
 * mur stop: murmur.StopSession, then SIGTERM to the session's process (seed 000: "murmur.StopSession ends no process
 * and does not shut the door … mur stop calls it, then signals the process"). A session whose door is unreachable —
 * no answer, a card without supportedInterfaces, a card naming another session — is refused and not signalled.
 */
export async function stop(argv: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = withUsage(STOP_USAGE, () =>
    parseArgs({ args: argv, allowPositionals: true, options: { token: { type: 'string' }, json: { type: 'boolean' } } }),
  );
  if (positionals.length > 1) throw new UsageError(`mur stop takes one session, not ${positionals.length}\n${STOP_USAGE}`);
  const formation = positionals[0] === undefined ? undefined : listFormations().find((f) => !f.stale && f.name === positionals[0]);
  if (formation) return stopFormation(formation, values.json === true, io);
  const session = findSession(positionals[0]);
  const target = { url: session.url, label: session.sessionId };
  const who = `session ${session.sessionId} (${session.name} ${session.version}, pid ${session.pid})`;
  const client = clientFor(session.url, tokenFor(session, values.token));

  let card: AgentCard;
  try {
    card = await fetchCard(client);
  } catch (error) {
    throw new DoorFailure(`${who} is unreachable: ${inPlainWords(error, target)}; it was not signalled`);
  }
  const verdict = checkCard(card, session);
  if (!verdict.ok) throw new DoorFailure(`${who} at ${session.url} is unreachable: ${verdict.reason}; it was not signalled`);

  let result: StopSessionResult;
  try {
    result = await client.stopSession();
  } catch (error) {
    throw new DoorFailure(`cannot stop ${who}: ${inPlainWords(error, target)}; it was not signalled`);
  }
  if (!values.json) {
    if (result.canceled.length === 0) io.out('no live task to cancel');
    for (const id of result.canceled) io.out(`canceled ${id}`);
    for (const item of result.residue) io.out(residueLine(item));
  }

  try {
    process.kill(session.pid, 'SIGTERM');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw new DoorFailure(`cannot signal ${who}: ${(error as Error).message}`);
  }
  if (!(await waitForExit(session.pid, STOP_WAIT_MS))) {
    throw new DoorFailure(`${who} has not exited ${STOP_WAIT_MS / 1000} s after SIGTERM; it may still be closing`);
  }
  if (values.json)
    io.out(JSON.stringify({ sessionId: session.sessionId, pid: session.pid, canceled: result.canceled, residue: result.residue, stopped: true }));
  else io.out(`stopped ${who}`);
  return 0;
}

/** mur stop <formation>: SIGTERM to the supervisor, which stops every member, then waits for it to exit. */
async function stopFormation(formation: FormationEntry, json: boolean, io: CommandIo): Promise<number> {
  const who = `formation ${formation.name} (pid ${formation.pid}, ${formation.members.length} members)`;
  try {
    process.kill(formation.pid, 'SIGTERM');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw new DoorFailure(`cannot signal ${who}: ${(error as Error).message}`);
  }
  // Each member may take up to STOP_WAIT_MS itself; the supervisor stops them one after another.
  if (!(await waitForExit(formation.pid, STOP_WAIT_MS * (formation.members.length + 1)))) {
    throw new DoorFailure(`${who} has not exited after SIGTERM; it may still be closing`);
  }
  if (json) io.out(JSON.stringify({ formation: formation.name, pid: formation.pid, members: formation.members.map((m) => m.sessionId), stopped: true }));
  else io.out(`stopped ${who}`);
  return 0;
}
