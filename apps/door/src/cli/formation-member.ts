import { parseArgs } from 'node:util';
import { doorSettings } from '../config/settings.js';
import { egressWarning } from '../formations/egress.js';
import { loadRoster } from '../formations/roster-loader.js';
import { isSupervisorMessage, type MemberToSupervisor } from '../formations/seat-messages.js';
import { FormationSeat, type MemberLink } from '../seat/formation-seat.js';
import { entryOf, register, unregister } from '../session/session-registry.js';
import { stageSession } from '../session/stage-session.js';
import { startDoor } from '../start-door.js';
import { atTime } from './run-command.js';
import { UsageError } from './usage-error.js';
import { manageMemoryWhileServing } from '../memory/serving-memory.js';

/**
 * One formation member's process (`mur run --roster FILE --member NAME`, forked by the supervisor with an IPC
 * channel): the member's own session and door, seated and launched by the supervisor's messages
 * (docs/formations.md, "Launch"). Resolves with the exit code once the session has stopped.
 */
export async function runMember(argv: string[], warn: (line: string) => void): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      roster: { type: 'string' },
      member: { type: 'string' },
      deadline: { type: 'string' },
      supervisor: { type: 'string' },
      host: { type: 'string', default: '127.0.0.1' },
    },
  });
  const send = process.send?.bind(process);
  if (!send) throw new UsageError('mur run --member is started by mur run --roster, with an IPC channel; run the roster instead');
  const settings = doorSettings();
  const roster = loadRoster(values.roster!, settings);
  const me = roster.members.find((m) => m.name === values.member);
  if (!me) throw new UsageError(`--member ${values.member}: not a member of ${roster.name}`);
  const deadlineMs = values.deadline === undefined ? undefined : Date.parse(values.deadline);
  const warning = egressWarning(me.name, me.callees, me.loaded.manifest.capabilities.network.allow);
  if (warning) warn(warning);
  const seat = new FormationSeat(
    roster.name,
    me.name,
    me.callees,
    me.callers,
    roster.members.map((m) => m.name),
  );
  const session = stageSession({ dir: me.loaded.dir, settings, host: values.host!, port: 0, deadlineMs, formation: seat });
  const door = await startDoor(session);
  manageMemoryWhileServing();
  register(
    entryOf(session, door.url, {
      name: roster.name,
      member: me.name,
      entry: roster.entry === me.name,
      supervisorPid: Number(values.supervisor ?? process.ppid),
    }),
  );
  const tell = (message: MemberToSupervisor) => send(message);
  let stopping: Promise<void> | null = null;
  let stopped = () => {};
  const done = new Promise<void>((resolve) => {
    stopped = resolve;
  });
  const stop = (failure?: string) => {
    stopping ??= door.close(failure).finally(() => {
      unregister(session.sessionId);
      stopped();
    });
    return stopping;
  };
  process.on('message', (message: unknown) => {
    if (!isSupervisorMessage(message)) return;
    if (message.kind === 'seat') {
      door.acceptTokens(message.accept);
      seat.seat(new Map<string, MemberLink>(message.links.map((l) => [l.member, { url: l.url, token: l.token }])), message.doors, message.formation);
      tell({ kind: 'seated' });
    } else {
      const accepting = session.manifest.lifecycle.task_acceptance !== 'none';
      void (message.task !== null && accepting ? door.tasks.submitSessionTask(message.task) : Promise.resolve(null)).then(
        (task) => tell({ kind: 'launched', taskId: task?.id ?? null }),
        (error: unknown) => tell({ kind: 'failed', message: (error as Error).message }),
      );
    }
  });
  // Before the announcement: a signal with no listener yet would end the member at once, its door not closed.
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
  tell({ kind: 'announced', member: me.name, sessionId: session.sessionId, url: door.url, pid: process.pid, recordsDir: session.recordsDir });
  door.tasks.on('session-idle-exit', () => void stop());
  if (session.deadline) {
    const { deadline } = session;
    atTime(deadline.atMs, () => {
      door.trace.write('session_deadline', { session_id: session.sessionId, at: deadline.at });
      void stop(`session deadline reached: the runtime ended this session at ${deadline.at}`);
    });
  }
  // The supervisor is gone (killed): a member never outlives its formation.
  process.once('disconnect', () => void stop());
  await done;
  return 0;
}
