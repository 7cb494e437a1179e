import { type ChildProcess, fork } from 'node:child_process';
import { parseArgs } from 'node:util';
import { doorSettings } from '../config/settings.js';
import { mintMemberTokens } from '../formations/member-tokens.js';
import { callersFirst, loadRoster, type Roster } from '../formations/roster-loader.js';
import { isMemberMessage, type MemberAnnounced, type MemberToSupervisor, type SupervisorToMember } from '../formations/seat-messages.js';
import { type FormationEntry, registerFormation, unregister, unregisterFormation } from '../session/session-registry.js';
import { launchTaskText } from '../session/stage-session.js';
import { parseDeadline } from './deadline-option.js';
import { checkHost } from './host-option.js';
import { atTime } from './run-command.js';
import { UsageError } from './usage-error.js';

export const ROSTER_USAGE = `usage: mur run --roster roster.yaml [--host H] [--task TEXT] [--json]

Starts every member of the formation roster.yaml names, each its own session and door in its own process, hands
each member its member tokens, gives the entry member the launch's task (--task, or task.md / input.txt beside
roster.yaml), and serves until SIGINT, SIGTERM, mur stop <formation name>, or the roster's deadline (docs/formations.md).
Every member's door listens on --host (default 127.0.0.1): one address of this machine, so the formation can be
watched from another host; its members still all run on this one.`;

/** How long a member may take to announce its door, and to take its seat. */
const MEMBER_START_MS = 30_000;
/** How long stopping waits for a member to exit after SIGTERM before SIGKILL. */
const MEMBER_STOP_MS = 10_000;

interface Member {
  readonly name: string;
  readonly child: ChildProcess;
  readonly exited: Promise<void>;
  announced?: MemberAnnounced;
}

function nextMessage<K extends MemberToSupervisor['kind']>(member: Member, kind: K): Promise<Extract<MemberToSupervisor, { kind: K }>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => done(new Error(`member ${member.name} did not answer within ${MEMBER_START_MS / 1000} s`)), MEMBER_START_MS);
    const onMessage = (message: unknown) => {
      if (!isMemberMessage(message)) return;
      if (message.kind === 'failed') done(new Error(`member ${member.name}: ${message.message}`));
      else if (message.kind === kind) done(null, message as Extract<MemberToSupervisor, { kind: K }>);
    };
    const onExit = (code: number | null) => done(new Error(`member ${member.name} exited${code === null ? '' : ` ${code}`} before it was ready`));
    const done = (error: Error | null, value?: Extract<MemberToSupervisor, { kind: K }>) => {
      clearTimeout(timer);
      member.child.off('message', onMessage);
      member.child.off('exit', onExit);
      if (error) reject(error);
      else resolve(value!);
    };
    member.child.on('message', onMessage);
    member.child.once('exit', onExit);
  });
}

/**
 * `mur run --roster`: the supervisor (docs/formations.md, "Launch: one process per member, one supervisor").
 * Resolves with the exit code once every member has stopped.
 */
export async function superviseFormation(argv: string[], out: (line: string) => void, warn: (line: string) => void): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      roster: { type: 'string' },
      host: { type: 'string', default: '127.0.0.1' },
      task: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  if (positionals.length > 0) throw new UsageError(`mur run --roster takes no capsule folder: the roster names them\n${ROSTER_USAGE}`);
  const roster = loadRoster(values.roster!, doorSettings());
  await checkHost(values.host!);
  const deadlineMs = roster.deadline === null ? null : parseDeadline(roster.deadline, Date.now());
  const launchText = launchTaskText(roster.dir, values.task);

  const members = roster.members.map((m): Member => {
    const args = ['run', '--roster', roster.file, '--member', m.name, '--supervisor', String(process.pid), '--host', values.host!];
    if (deadlineMs !== null) args.push('--deadline', new Date(deadlineMs).toISOString());
    const child = fork(process.argv[1], args, { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    child.stderr!.on('data', (chunk: Buffer) => {
      for (const line of chunk
        .toString()
        .split('\n')
        .filter((l) => l !== ''))
        warn(`${m.name}: ${line.replace(/^mur: /, '')}`);
    });
    return { name: m.name, child, exited: new Promise((resolve) => child.once('exit', () => resolve())) };
  });
  const byName = new Map(members.map((m) => [m.name, m]));
  let stopping: Promise<void> | null = null;
  let requestStop = () => {};
  const stopRequested = new Promise<void>((resolve) => {
    requestStop = resolve;
  });
  const stopAll = () => {
    requestStop();
    stopping ??= (async () => {
      // Callers first: no member is called once its callee has gone.
      for (const name of callersFirst(roster)) await stopMember(byName.get(name)!);
      // Every member has exited by now: a member that could not unregister (SIGKILLed) leaves no entry behind.
      for (const member of members) if (member.announced) unregister(member.announced.sessionId);
      unregisterFormation(roster.name, process.pid);
    })();
    return stopping;
  };
  // From the start, not once announced: a caller may signal the formation the moment it reads the announcement, and
  // a signal with no listener yet ends the supervisor at once, its members left to notice it gone. A signal while the
  // members start stops them, and the formation ends as if stopped once it had started.
  let signaled = false;
  const onSignal = () => {
    signaled = true;
    void stopAll();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    for (const member of members) member.announced = await nextMessage(member, 'announced');
    const tokens = mintMemberTokens(roster);
    const placed = formationEntry(roster, members);
    await Promise.all(
      members.map((member) => {
        const seat = tokens.get(member.name)!;
        const links = [...seat.present].map(([callee, token]) => ({ member: callee, url: byName.get(callee)!.announced!.url, token }));
        const seated = nextMessage(member, 'seated');
        send(member, { kind: 'seat', accept: seat.accept, links, doors: members.map((m) => m.announced!.url), formation: placed });
        return seated;
      }),
    );
    const entry = byName.get(roster.entry)!;
    const launched = nextMessage(entry, 'launched');
    send(entry, { kind: 'launch', task: launchText });
    const { taskId } = await launched;
    announce(roster, members, placed, taskId, values.json!, out);
  } catch (error) {
    await stopAll();
    if (signaled) return 0;
    throw error;
  }
  if (deadlineMs !== null) atTime(deadlineMs, () => void stopAll());
  // Until a signal, mur stop or the deadline stops the formation, or every member has exited on its own.
  await Promise.race([stopRequested, Promise.all(members.map((m) => m.exited))]);
  await stopAll();
  return 0;
}

function send(member: Member, message: SupervisorToMember): void {
  if (member.child.connected) member.child.send(message);
}

/** SIGTERM, then SIGKILL if the member has not exited in time. */
async function stopMember(member: Member): Promise<void> {
  if (member.child.exitCode !== null || member.child.signalCode !== null) return;
  member.child.kill('SIGTERM');
  const timer = setTimeout(() => member.child.kill('SIGKILL'), MEMBER_STOP_MS);
  await member.exited;
  clearTimeout(timer);
}

/** The formation's registry entry, once every member has announced itself; each member's seat carries it too. */
function formationEntry(roster: Roster, members: Member[]): FormationEntry {
  return {
    name: roster.name,
    pid: process.pid,
    rosterFile: roster.file,
    entry: roster.entry,
    members: members.map((m) => ({ member: m.name, sessionId: m.announced!.sessionId, url: m.announced!.url, pid: m.announced!.pid })),
    startedAt: new Date().toISOString(),
  };
}

function announce(roster: Roster, members: Member[], placed: FormationEntry, taskId: string | null, json: boolean, out: (line: string) => void): void {
  const rows = members.map((m) => ({
    member: m.name,
    sessionId: m.announced!.sessionId,
    url: m.announced!.url,
    pid: m.announced!.pid,
    recordsDir: m.announced!.recordsDir,
  }));
  registerFormation(placed);
  if (json) {
    out(JSON.stringify({ formation: roster.name, pid: process.pid, entry: roster.entry, members: rows, launchTaskId: taskId }));
    return;
  }
  out(`mur: formation ${roster.name} is running (${members.length} member${members.length === 1 ? '' : 's'})`);
  const width = Math.max(...rows.map((r) => r.member.length));
  for (const row of rows) out(`${row.member.padEnd(width)}  ${row.url}  ${row.sessionId}${row.member === roster.entry ? '  entry' : ''}`);
  if (taskId) out(`task     ${taskId}`);
}
