#!/usr/bin/env node
import { CONSOLE_USAGE, consoleCommand } from './console-command.js';
import { demo } from './demo-command.js';
import { describeLaunchError, launch, RUN_USAGE } from './run-command.js';
import { TOKEN_USAGE, token } from './token-command.js';

const USAGE = `usage: mur <command> [options]

commands:
  run [DIR]     run a capsule's session and serve its A2A door
  console       serve the operators' console for the sessions on this host
  demo [DIR]    run a capsule (default examples/hello) and play a short tour against its door
  token [SESSION]  print the door tokens of a running authenticated session

${RUN_USAGE}

${CONSOLE_USAGE}

${TOKEN_USAGE}`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'run': {
      const session = await launch(rest, (line) => process.stdout.write(`${line}\n`));
      await new Promise<void>((resolve) => {
        const onSignal = () => void session.stop().then(resolve);
        process.once('SIGINT', onSignal);
        process.once('SIGTERM', onSignal);
      });
      return 0;
    }
    case 'demo':
      return demo(rest);
    case 'console':
      return consoleCommand(rest, (line) => process.stdout.write(`${line}\n`));
    case 'token':
      return token(rest, (line) => process.stdout.write(`${line}\n`));
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(`${USAGE}\n`);
      return command === undefined ? 2 : 0;
    default:
      process.stderr.write(`mur: unknown command '${command}'\n${USAGE}\n`);
      return 2;
  }
}

// Exit only once the message is flushed: a piped stderr is written asynchronously.
main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const { message, code } = describeLaunchError(error);
    process.stderr.write(`mur: ${message}\n`, () => process.exit(code));
  },
);
