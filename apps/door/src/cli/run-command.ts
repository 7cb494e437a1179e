import { parseArgs } from 'node:util';
import { ConfigError } from '../config/config-problem.js';
import { doorSettings } from '../config/settings.js';
import { ConsoleNotBuiltError } from '../console-server/console-not-built-error.js';
import { startDoor, type RunningDoor } from '../start-door.js';
import { SANDBOX_OFF_WARNING } from '../tools/sandbox/sandbox.js';
import { entryOf, register, unregister } from '../session/session-registry.js';
import { launchTaskText, StagingError, stageSession } from '../session/stage-session.js';
import { parseDeadline } from './deadline-option.js';
import { checkLaunchContext } from './launch-context.js';
import { checkHost } from './host-option.js';
import { manageMemoryWhileServing } from '../memory/serving-memory.js';
import { UsageError } from './usage-error.js';

export const RUN_USAGE = `usage: mur run [DIR] [--port N] [--host H] [--task TEXT] [--context ID [--forget-session]] [--resume SESSION] [--deadline WHEN] [--json]

Stages a session of the capsule in DIR (default: .), starts its door, prints the door's
address and the session id, runs the launch's task (--task, or task.md / input.txt in DIR),
and serves until SIGINT or SIGTERM, which cancel live tasks before it exits, or until
--deadline (an RFC 3339 time, or a duration such as 30m), which fails live tasks and ends it.
--context gives the launch's task a context id; on a harness capsule (inference.transport:
process) it resumes that context's harness session, which --forget-session drops first.`;

export interface StartedSession {
  door: RunningDoor;
  sessionId: string;
  stop(): Promise<void>;
}

export { UsageError };

/** Stages, starts, registers and announces a session; returns once the door answers. */
export async function launch(argv: string[], out: (line: string) => void): Promise<StartedSession> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      port: { type: 'string', default: '0' },
      host: { type: 'string', default: '127.0.0.1' },
      task: { type: 'string' },
      resume: { type: 'string' },
      deadline: { type: 'string' },
      context: { type: 'string' },
      'forget-session': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  if (positionals.length > 1) throw new UsageError(`mur run takes one capsule folder, not ${positionals.length}`);
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port takes a port number from 0 to 65535, not '${values.port}'`);
  const deadlineMs = values.deadline === undefined ? undefined : parseDeadline(values.deadline, Date.now());
  await checkHost(values.host!);
  const forgetSession = values['forget-session'] === true;
  checkLaunchContext({ dir: positionals[0] ?? '.', context: values.context, forgetSession, resume: values.resume, task: values.task }, doorSettings());
  const session = stageSession({ dir: positionals[0] ?? '.', settings: doorSettings(), host: values.host!, port, resume: values.resume, deadlineMs });
  const door = await startDoor(session);
  const shell = session.manifest.capabilities.shell;
  if (shell.sandbox === 'off' && shell.allow.length > 0) process.stderr.write(`${SANDBOX_OFF_WARNING}\n`);
  manageMemoryWhileServing();
  const launchText = session.resumed ? null : launchTaskText(session.capsuleDir, values.task);
  const launchTask =
    launchText !== null && session.manifest.lifecycle.task_acceptance !== 'none'
      ? await door.tasks.submitSessionTask(launchText, { contextId: values.context ?? null, forgetSession: forgetSession ? 'cli' : null })
      : null;
  register(entryOf(session, door.url));
  const announced = {
    sessionId: session.sessionId,
    url: door.url,
    name: session.manifest.name,
    version: session.manifest.version,
    pid: process.pid,
    recordsDir: session.recordsDir,
    launchTaskId: launchTask?.id ?? null,
  };
  if (values.json) out(JSON.stringify(announced));
  else {
    out(`mur: ${announced.name} ${announced.version} is listening`);
    out(`door     ${announced.url}`);
    out(`session  ${announced.sessionId}`);
    out(`records  ${announced.recordsDir}`);
    if (launchTask) out(`task     ${launchTask.id}`);
  }
  let stopping: Promise<void> | null = null;
  const stop = (failure?: string) => {
    stopping ??= door.close(failure).finally(() => unregister(session.sessionId));
    return stopping;
  };
  door.tasks.on('session-idle-exit', () => void stop().then(() => process.exit(0)));
  const { deadline } = session;
  if (deadline) {
    // The deadline ends the session: live tasks fail saying so, held requests are answered, the process exits 0.
    atTime(deadline.atMs, () => {
      door.trace.write('session_deadline', { session_id: session.sessionId, at: deadline.at });
      void stop(`session deadline reached: the runtime ended this session at ${deadline.at}`).then(() => process.exit(0));
    });
  }
  return { door, sessionId: session.sessionId, stop };
}

/** Node's timers hold at most 2^31 - 1 ms (about 24.8 days); a later time is reached in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export function atTime(ms: number, run: () => void): void {
  const wait = ms - Date.now();
  if (wait > MAX_TIMER_MS) setTimeout(() => atTime(ms, run), MAX_TIMER_MS).unref();
  else setTimeout(run, Math.max(0, wait)).unref();
}

/**
 * Maps launch failures to the CLI's messages and exit codes: 2 for bad input (a bad murmur.yaml, roster.yaml, script
 * or environment setting: every ConfigError; a bad flag), 1 for anything else.
 */
export function describeLaunchError(error: unknown): { message: string; code: number } {
  if (error instanceof ConfigError || error instanceof StagingError || error instanceof UsageError || error instanceof ConsoleNotBuiltError)
    return { message: error.message, code: 2 };
  const e = error as NodeJS.ErrnoException;
  if (e.code === 'EADDRINUSE') return { message: `the port is already in use: ${e.message}`, code: 1 };
  if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' || e.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') return { message: `${e.message}\n${RUN_USAGE}`, code: 2 };
  return { message: e.stack ?? String(error), code: 1 };
}
