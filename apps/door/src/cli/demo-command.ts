import path from 'node:path';
import { launch } from './run-command.js';

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

const say = (line: string) => process.stdout.write(`${line}\n`);

function describe(result: RpcResult): string {
  if (result.error) return `error ${result.error.code}: ${result.error.message}`;
  const task = result.result?.task;
  if (!task) return JSON.stringify(result);
  const art = task.artifacts?.[0];
  return `${task.id} ${task.status.state}${art ? ` ${art.artifactId}: ${art.parts.map((p) => p.text).join('')}` : ''}`;
}

/** mur demo: a capsule on the embedded defaults (SQLite, script driver), a short tour, then serving until Ctrl-C. */
export async function demo(argv: string[]): Promise<number> {
  const dir = argv[0] ?? path.resolve('examples/hello');
  const session = await launch([dir, ...argv.slice(1)], say);
  const url = session.door.url;
  const send = (text: string, extra: Record<string, unknown> = {}) =>
    rpc(url, 'SendMessage', { message: { messageId: `demo-${Date.now()}-${Math.random()}`, role: 'ROLE_USER', parts: [{ text }], ...extra } });
  say('\n— tour —');
  say(`> What is 2+2?\n  ${describe(await send('What is 2+2?'))}`);
  const asked = await send('Deploy the service');
  say(`> Deploy the service\n  ${describe(asked)}`);
  const waiting = asked.result?.task;
  if (waiting?.status.state === 'TASK_STATE_INPUT_REQUIRED') say(`> (reply) main\n  ${describe(await send('main', { taskId: waiting.id }))}`);
  say(`> Show the system\n  ${describe(await send('Show the system'))}`);
  say(`\nThe door stays up at ${url}. Try:\n  curl -s -X POST ${url}/ -H 'Content-Type: application/json' -H 'A2A-Version: 1.0' \\\n    -d '{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{}}'\nCtrl-C stops it.`);
  await new Promise<void>((resolve) => {
    const onSignal = () => void session.stop().then(resolve);
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  });
  return 0;
}
