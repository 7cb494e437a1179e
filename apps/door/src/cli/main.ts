#!/usr/bin/env node
// Each command loads only what it runs: the door's runtime (NestJS, Fastify, SQLite), the console server and the
// client commands (with @murmur/client) are imported by their command, so `mur run` holds no client or console code
// and the client commands start in a fraction of the time.
import { UsageError } from './usage-error.js';

const processIo = async () => (await import('./client-command-support.js')).processIo;
const terminal = () => import('./terminal-lines.js');

async function usage(): Promise<string> {
  const [
    { ROSTER_USAGE },
    { RUN_USAGE },
    { CONSOLE_USAGE },
    { TOKEN_USAGE },
    { PS_USAGE },
    { WATCH_USAGE },
    { CANCEL_USAGE },
    { STOP_USAGE },
    { CONTROL_USAGE },
    { DEMO_USAGE },
    { COMPLETION_USAGE },
    { PACK_USAGE },
    { PUBLISH_USAGE },
    { PULL_USAGE },
    { LIST_USAGE },
    { REMOVE_USAGE },
  ] = await Promise.all([
    import('./formation-supervisor.js'),
    import('./run-command.js'),
    import('./console-command.js'),
    import('./token-command.js'),
    import('./ps-command.js'),
    import('./watch-command.js'),
    import('./cancel-command.js'),
    import('./stop-command.js'),
    import('./control-command.js'),
    import('./demo-command.js'),
    import('./completion-usage.js'),
    import('./pack-command.js'),
    import('./publish-command.js'),
    import('./pull-command.js'),
    import('./list-command.js'),
    import('./remove-command.js'),
  ]);
  return `usage: mur <command> [options]

commands:
  run [DIR]     run a capsule's session and serve its A2A door
  run --roster roster.yaml  run a formation: every member its own session and door
  console       serve the operators' console for the sessions on this host
  demo          run examples/hello and examples/secure, a short tour, and the console
  token [SESSION]  print the door tokens and the control token of a running session
  ps            list the sessions registered on this host, each reachable or not
  watch [SESSION|ADDR]  observe every task of a session until the capsule closes
  cancel TASK   cancel a task and print what it leaves running
  stop [SESSION]  cancel a session's live tasks, then end its process
  control [SESSION] driver CHOICE  select the driver choice of a running session's next inference call
  pack DIR      check an artifact folder and write its archive
  publish ARCHIVE|DIR  write an artifact into a store
  pull NAME     find, check and pin an artifact in murmur.lock
  list          what murmur.lock pins
  remove NAME   remove a pin from murmur.lock
  completion bash|zsh|fish  print a shell completion script
  version       print mur's version (also --version)

Every command takes -h / --help for its own usage.

${RUN_USAGE}

${ROSTER_USAGE}

${CONSOLE_USAGE}

${TOKEN_USAGE}

${PS_USAGE}

${WATCH_USAGE}

${CANCEL_USAGE}

${STOP_USAGE}

${CONTROL_USAGE}

${DEMO_USAGE}

${PACK_USAGE}

${PUBLISH_USAGE}

${PULL_USAGE}

${LIST_USAGE}

${REMOVE_USAGE}

${COMPLETION_USAGE}`;
}

const HELP = new Set([undefined, 'help', '--help', '-h']);
/**
 * The commands that remove the registry's stale entries before they run (docs/cli.md, "Stale registry entries"):
 * every command but help, and mur ps, which lists them first and removes them itself. A formation member and a
 * delegated child (forked by mur run) leave it to the mur that started them.
 */
const PRUNES_FIRST = new Set(['run', 'console', 'demo', 'token', 'watch', 'cancel', 'stop', 'control']);

/**
 * A closed pipe ends mur quietly (`mur watch | head`): EPIPE on stdout or stderr exits 0 instead of a stack trace, as
 * gh and kubectl do.
 */
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === '--version' || command === '-V' || command === 'version') {
    process.stdout.write(`${(await import('./command-help.js')).versionLine()}\n`);
    return 0;
  }
  // -h / --help after a command: that command's own usage, exit 0 (docs/cli.md, "Help, version, completion").
  if (command !== undefined && !HELP.has(command)) {
    const help = await import('./command-help.js');
    if (help.wantsHelp(rest)) {
      const usage = await help.usageOf(command, rest);
      if (usage !== null) {
        process.stdout.write(`${usage}\n`);
        return 0;
      }
    }
  }
  // The environment's settings are read once, here, before any command runs (docs/cli.md, "Environment settings"):
  // a bad value stops the process now, exit 2, rather than whenever something first needs it.
  if (!HELP.has(command)) (await import('../config/settings.js')).doorSettings();
  if (PRUNES_FIRST.has(command) && !rest.includes('--member') && !rest.includes('--delegation')) (await import('./prune-registry.js')).pruneRegistry();
  switch (command) {
    case 'run': {
      // Before the door's code loads: its start would grow the young generation for good (young-generation.ts).
      (await import('../memory/young-generation.js')).keepYoungGenerationSmall();
      // The door's modules load with Intl.DateTimeFormat lazy: NestJS builds formatters it never uses (that file).
      const { withLazyDateTimeFormat } = await import('../memory/lazy-date-time-format.js');
      const { printOut, printErr } = await terminal();
      const warn = (line: string) => printErr(`mur: ${line}`);
      if (rest.includes('--delegation')) return (await withLazyDateTimeFormat(() => import('./delegation-child.js'))).runDelegationChild(rest);
      if (rest.includes('--member')) return (await withLazyDateTimeFormat(() => import('./formation-member.js'))).runMember(rest, warn);
      if (rest.some((a) => a === '--roster' || a.startsWith('--roster='))) {
        return (await withLazyDateTimeFormat(() => import('./formation-supervisor.js'))).superviseFormation(rest, printOut, warn);
      }
      const { launch } = await withLazyDateTimeFormat(() => import('./run-command.js'));
      // Taken before the door announces itself: a caller may signal it the moment it reads the announcement, and a
      // signal with no listener yet ends the process at once, without closing the door (its registry entry stays).
      const signaled = new Promise<void>((resolve) => {
        process.once('SIGINT', () => resolve());
        process.once('SIGTERM', () => resolve());
      });
      const session = await launch(rest, printOut);
      await signaled;
      await session.stop();
      return 0;
    }
    case 'demo':
      return (await import('./demo-command.js')).demo(rest);
    case 'console':
      return (await import('./console-command.js')).consoleCommand(rest, (await terminal()).printOut);
    case 'token':
      return (await import('./token-command.js')).token(rest, (await terminal()).printOut);
    case 'ps':
      return (await import('./ps-command.js')).ps(rest, await processIo());
    case 'watch':
      return (await import('./watch-command.js')).watch(rest, await processIo());
    case 'cancel':
      return (await import('./cancel-command.js')).cancel(rest, await processIo());
    case 'stop':
      return (await import('./stop-command.js')).stop(rest, await processIo());
    case 'control':
      return (await import('./control-command.js')).control(rest, await processIo());
    case 'completion':
      return (await import('./completion-command.js')).completion(rest, (text) => process.stdout.write(text));
    case 'pack':
      return (await import('./pack-command.js')).pack(rest);
    case 'publish':
      return (await import('./publish-command.js')).publish(rest);
    case 'pull':
      return (await import('./pull-command.js')).pull(rest);
    case 'list':
      return (await import('./list-command.js')).list(rest);
    case 'remove':
      return (await import('./remove-command.js')).remove(rest);
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(`${await usage()}\n`);
      return command === undefined ? 2 : 0;
    default: {
      const nearest = (await import('./command-help.js')).nearestCommand(command);
      const hint = nearest === null ? 'mur --help lists the commands' : `did you mean 'mur ${nearest}'? (mur --help lists the commands)`;
      process.stderr.write(`mur: unknown command '${command}'; ${hint}\n`);
      return 2;
    }
  }
}

// Exit only once the message is flushed: a piped stderr is written asynchronously.
main(process.argv.slice(2)).then(
  (code) => process.stdout.write('', () => process.stderr.write('', () => process.exit(code))),
  async (error: unknown) => {
    // A failure talking to a door exits 1 with its message (the client commands), never a stack; a usage error 2.
    const { DoorFailure } = await import('./client-command-support.js');
    const { ConfigError } = await import('../config/config-problem.js');
    const { message, code } =
      error instanceof DoorFailure
        ? { message: error.message, code: 1 }
        : error instanceof UsageError || error instanceof ConfigError
          ? { message: error.message, code: 2 }
          : (await import('./run-command.js')).describeLaunchError(error);
    (await terminal()).failWith(`mur: ${message}`, code);
  },
);
