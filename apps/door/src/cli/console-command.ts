import { parseArgs } from 'node:util';
import { type AddedDoor, AddedDoorError, addedDoor } from '../console-server/added-doors.js';
import { doorSettings } from '../config/settings.js';
import { startConsoleServer } from '../console-server/console-server.js';
import { UsageError } from './run-command.js';

export const CONSOLE_USAGE = `usage: mur console [--port N] [--host H] [--json] [--door URL [--token-file F]]...

Serves the operators' console and a same-origin proxy to the doors on this machine's loopback
(default http://127.0.0.1:7070), until SIGINT or SIGTERM. Each --door adds a door not registered on this
host (another machine's), shown and proxied by name; a --token-file after it holds that door's bearer token.`;

/** The --door URL [--token-file F] pairs, in order: a token file belongs to the --door before it. */
function doorsOf(tokens: readonly { kind: string; name?: string; value?: string }[]): AddedDoor[] {
  const pairs: { url: string; tokenFile: string | null }[] = [];
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    if (token.name === 'door') pairs.push({ url: token.value ?? '', tokenFile: null });
    else if (token.name === 'token-file') {
      const last = pairs.at(-1);
      if (!last || last.tokenFile !== null) throw new UsageError('--token-file follows the --door it belongs to');
      last.tokenFile = token.value ?? '';
    }
  }
  try {
    const doors = pairs.map(({ url, tokenFile }) => addedDoor(url, tokenFile));
    const keys = new Set(doors.map((d) => d.key));
    if (keys.size !== doors.length) throw new AddedDoorError('the same door is given twice');
    return doors;
  } catch (error) {
    if (error instanceof AddedDoorError) throw new UsageError(error.message);
    throw error;
  }
}

export const DEFAULT_CONSOLE_PORT = 7070;

export async function consoleCommand(argv: string[], out: (line: string) => void): Promise<number> {
  const { values, positionals, tokens } = parseArgs({
    args: argv,
    allowPositionals: true,
    tokens: true,
    options: {
      port: { type: 'string', default: String(DEFAULT_CONSOLE_PORT) },
      host: { type: 'string', default: '127.0.0.1' },
      json: { type: 'boolean', default: false },
      door: { type: 'string', multiple: true },
      'token-file': { type: 'string', multiple: true },
    },
  });
  if (positionals.length > 0) throw new UsageError(CONSOLE_USAGE);
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port takes a port number from 0 to 65535, not '${values.port}'`);
  const doors = doorsOf(tokens ?? []);
  const { url, server } = await startConsoleServer({ host: values.host!, port, doors, settings: doorSettings() });
  out(values.json ? JSON.stringify({ url }) : `mur: console at ${url}`);
  await new Promise<void>((resolve) => {
    const stop = () => void server.close().then(resolve);
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  return 0;
}
