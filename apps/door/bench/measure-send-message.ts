/** Blocking SendMessage: each request submits a task and is answered once the script driver has completed it. */
import { METHOD } from '@murmur/protocol';
import { BENCH_TASK_TEXT } from './capsule.js';
import type { BenchConfig } from './config.js';
import type { DoorProcess } from './door-process.js';
import { type LoadResult, warmThenRun } from './load.js';
import { RPC_HEADERS, rpcBody, sendParams } from './rpc-client.js';

export interface SendMessageMeasurement {
  door: LoadResult;
  /** The raw Fastify endpoint's requests/s from the GetTask measurement, for scale. */
  rawPerSecond: number;
  /** Door tasks/s over raw Fastify requests/s. */
  ratio: number;
}

export async function measureSendMessage(door: DoorProcess, rawPerSecond: number, config: BenchConfig, log: (line: string) => void): Promise<SendMessageMeasurement> {
  // autocannon replaces [<id>] with a fresh id on every request: every message has its own messageId.
  const body = rpcBody(METHOD.SendMessage, sendParams(BENCH_TASK_TEXT, 'msg-bench-[<id>]'), 1);
  log(`SendMessage (blocking): door (${config.seconds}s)`);
  const result = await warmThenRun(
    {
      url: `${door.url}/`,
      pid: door.pid,
      connections: config.connections,
      seconds: config.seconds,
      headers: RPC_HEADERS,
      body,
      verify: (answer) => answer.includes('"TASK_STATE_COMPLETED"') && answer.includes('pong'),
    },
    config.warmupSeconds,
  );
  return { door: result, rawPerSecond, ratio: result.perSecond / rawPerSecond };
}
