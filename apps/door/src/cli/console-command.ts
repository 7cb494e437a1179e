import { parseArgs } from 'node:util';
import { startConsoleServer } from '../console-server/console-server.js';
import { UsageError } from './run-command.js';

export const CONSOLE_USAGE = `usage: mur console [--port N] [--host H] [--json]

Serves the operators' console and a same-origin proxy to the doors on this machine's loopback
(default http://127.0.0.1:7070), until SIGINT or SIGTERM.`;

export const DEFAULT_CONSOLE_PORT = 7070;

export async function consoleCommand(argv: string[], out: (line: string) => void): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { port: { type: 'string', default: String(DEFAULT_CONSOLE_PORT) }, host: { type: 'string', default: '127.0.0.1' }, json: { type: 'boolean', default: false } },
  });
  if (positionals.length > 0) throw new UsageError(CONSOLE_USAGE);
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port takes a port number from 0 to 65535, not '${values.port}'`);
  const { url, server } = await startConsoleServer({ host: values.host!, port });
  out(values.json ? JSON.stringify({ url }) : `mur: console at ${url}`);
  await new Promise<void>((resolve) => {
    const stop = () => void server.close().then(resolve);
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  return 0;
}
