/**
 * The door beside the official SDK's server (@a2a-js/sdk, in memory) in the same run: blocking SendMessage at 1 and
 * 16 connections, alternating door and SDK round by round so that outside load on a shared machine weighs on both;
 * per-task CPU is the server's CPU time over the tasks it answered.
 */
import { METHOD } from '@murmur/protocol';
import { BENCH_TASK_TEXT } from './capsule.js';
import type { BenchConfig } from './config.js';
import type { DoorProcess } from './door-process.js';
import { type LoadResult, type LoadRun, type LoadSpec, runLoad, summarize } from './load.js';
import type { RawEndpoint } from './raw-endpoint.js';
import { RPC_HEADERS, rpcBody, sendParams } from './rpc-client.js';
import { median } from './stats.js';

export interface SendRate {
  result: LoadResult;
  /** Median over rounds of tasks/s. */
  medianPerSecond: number;
  /** The server's CPU per answered task, in µs (median over rounds); null without /proc. */
  cpuMicrosPerTask: number | null;
}

export interface SendVersusSdk {
  connections: number;
  door: SendRate;
  sdk: SendRate;
  /** Door over SDK, of the medians. */
  ratio: number;
}

const rate = (run: LoadRun) => run.good / run.seconds;
const cpuPerTask = (run: LoadRun) => (run.serverCpuSeconds === null || run.good === 0 ? null : (run.serverCpuSeconds / run.good) * 1e6);

function sendRate(runs: LoadRun[]): SendRate {
  const cpus = runs.map(cpuPerTask);
  return {
    result: summarize(runs),
    medianPerSecond: median(runs.map(rate)),
    cpuMicrosPerTask: cpus.some((c) => c === null) ? null : median(cpus as number[]),
  };
}

export async function measureSendVersusSdk(
  door: DoorProcess,
  sdk: RawEndpoint,
  connections: number,
  config: BenchConfig,
  log: (line: string) => void,
): Promise<SendVersusSdk> {
  const body = rpcBody(METHOD.SendMessage, sendParams(BENCH_TASK_TEXT, 'msg-bench-[<id>]'), 1);
  const verify = (answer: string) => answer.includes('"TASK_STATE_COMPLETED"') && answer.includes('pong');
  const segment = config.seconds / config.rounds;
  const spec = (url: string, pid: number, seconds: number): LoadSpec => ({ url: `${url}/`, pid, connections, seconds, headers: RPC_HEADERS, body, verify });
  const doorSpec = spec(door.url, door.pid, segment);
  const sdkSpec = spec(sdk.url, sdk.pid, segment);
  if (config.warmupSeconds > 0) {
    log(`SendMessage c${connections}: warming up the door and the SDK server (${config.warmupSeconds}s each)`);
    await runLoad({ ...doorSpec, seconds: config.warmupSeconds });
    await runLoad({ ...sdkSpec, seconds: config.warmupSeconds });
  }
  const doorRuns: LoadRun[] = [];
  const sdkRuns: LoadRun[] = [];
  for (let round = 0; round < config.rounds; round++) {
    log(`SendMessage c${connections}: round ${round + 1}/${config.rounds}, the door and the SDK server (${segment.toFixed(2)}s each)`);
    const doorFirst = round % 2 === 0;
    const first = await runLoad(doorFirst ? doorSpec : sdkSpec);
    const second = await runLoad(doorFirst ? sdkSpec : doorSpec);
    doorRuns.push(doorFirst ? first : second);
    sdkRuns.push(doorFirst ? second : first);
  }
  const doorRate = sendRate(doorRuns);
  const sdkRate = sendRate(sdkRuns);
  return { connections, door: doorRate, sdk: sdkRate, ratio: doorRate.medianPerSecond / sdkRate.medianPerSecond };
}
