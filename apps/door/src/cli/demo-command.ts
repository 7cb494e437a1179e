import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { partsText } from '@murmur/protocol';
import { TOKENS_FILE } from '../auth/tokens.js';
import { doorSettings } from '../config/settings.js';
import { startConsoleServer } from '../console-server/console-server.js';
import { launch, type StartedSession } from './run-command.js';
import { printOut } from './terminal-lines.js';

interface RpcResult {
  result?: { task?: { id: string; status: { state: string }; artifacts?: { artifactId: string; parts: { text?: string }[] }[] } };
  error?: { code: number; message: string };
}

async function rpc(url: string, method: string, params: unknown): Promise<RpcResult> {
  const response = await fetch(`${url}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await response.json()) as RpcResult;
}

const say = printOut;

function describe(result: RpcResult): string {
  if (result.error) return `error ${result.error.code}: ${result.error.message}`;
  const task = result.result?.task;
  if (!task) return JSON.stringify(result);
  const art = task.artifacts?.[0];
  return `${task.id} ${task.status.state}${art ? ` ${art.artifactId}: ${partsText(art.parts)}` : ''}`;
}

export const DEMO_USAGE = `usage: mur demo [--console-port N] [--no-console]

Runs examples/hello (public), examples/secure (bearer tokens) and examples/artifacts (a WASM tool it
declares, a native tool and a skill it pulls) on the embedded defaults (SQLite, the script driver), plays a
short tour against hello and artifacts, and serves the console (http://127.0.0.1:7070 by default) until Ctrl-C.`;

/** mur demo: capsules on the embedded defaults, a short tour, and the console, until Ctrl-C. */
export async function demo(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { 'console-port': { type: 'string', default: '7070' }, 'no-console': { type: 'boolean', default: false } },
  });
  // The repository's examples/, wherever mur demo is run from.
  const examples = fileURLToPath(new URL('../../../../../examples/', import.meta.url));
  // Taken before anything is printed, as `mur run` does: a caller may signal the moment it reads the last line, and a
  // signal with no listener yet ends the process at once, without closing the doors.
  const signaled = new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  const sessions: StartedSession[] = [];
  const hello = await launch([path.join(examples, 'hello')], say);
  sessions.push(hello);
  say('');
  const secure = await launch([path.join(examples, 'secure')], say);
  sessions.push(secure);
  say('');
  const artifacts = await launch([path.join(examples, 'artifacts')], say);
  sessions.push(artifacts);

  const url = hello.door.url;
  const send = (text: string, extra: Record<string, unknown> = {}) =>
    rpc(url, 'SendMessage', { message: { messageId: `demo-${Date.now()}-${Math.random()}`, role: 'ROLE_USER', parts: [{ text }], ...extra } });
  say('\n— tour of hello —');
  say(`> What is 2+2?\n  ${describe(await send('What is 2+2?'))}`);
  const asked = await send('Deploy the service');
  say(`> Deploy the service\n  ${describe(asked)}`);
  const waiting = asked.result?.task;
  if (waiting?.status.state === 'TASK_STATE_INPUT_REQUIRED') say(`> (reply) main\n  ${describe(await send('main', { taskId: waiting.id }))}`);
  say(`> Show the system\n  ${describe(await send('Show the system'))}`);

  // examples/artifacts (docs/artifacts.md): a pull of a native tool and a skill used in the next turn, and a WASM tool that asks.
  const sendArtifacts = (text: string, extra: Record<string, unknown> = {}) =>
    rpc(artifacts.door.url, 'SendMessage', { message: { messageId: `demo-${Date.now()}-${Math.random()}`, role: 'ROLE_USER', parts: [{ text }], ...extra } });
  say('\n— tour of artifacts —');
  say(`> count the lines of my notes\n  ${describe(await sendArtifacts('count the lines of my notes'))}`);
  const greeting = await sendArtifacts('greet someone');
  say(`> greet someone\n  ${describe(greeting)}`);
  const greeter = greeting.result?.task;
  if (greeter?.status.state === 'TASK_STATE_INPUT_REQUIRED') say(`> (reply) Ana\n  ${describe(await sendArtifacts('Ana', { taskId: greeter.id }))}`);

  const stops: (() => Promise<unknown>)[] = sessions.map((s) => s.stop);
  if (!values['no-console']) {
    const consoleServer = await startConsoleServer({ host: '127.0.0.1', port: Number(values['console-port']), settings: doorSettings() });
    stops.push(() => consoleServer.server.close());
    say(`\nConsole: ${consoleServer.url}  (open it in a browser: the three sessions are listed)`);
  }
  if (existsSync(path.join(secure.door.recordsDir, TOKENS_FILE))) {
    say(`secure asks for a token: npx mur token ${secure.sessionId} prints them`);
  }
  say(
    `\nThe doors stay up. Try:\n  curl -s -X POST ${url}/ -H 'Content-Type: application/json' -H 'A2A-Version: 1.0' \\\n    -d '{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{}}'\nCtrl-C stops everything.`,
  );
  await signaled;
  await Promise.all(stops.map((stop) => stop()));
  return 0;
}
