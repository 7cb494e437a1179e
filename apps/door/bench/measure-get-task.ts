/**
 * GetTask on a real door beside a raw Fastify endpoint answering the same JSON, with the same load generator in
 * the same run. The two alternate in rounds (raw, door, then door, raw, …) so that a burst of outside load on a
 * shared machine weighs on both rather than on one.
 */
import { METHOD } from '@murmur/protocol';
import type { BenchConfig } from './config.js';
import { TARGETS } from './config.js';
import type { DoorProcess } from './door-process.js';
import { type LoadResult, type LoadRun, type LoadSpec, runLoad, summarize } from './load.js';
import { startRawEndpoint } from './raw-endpoint.js';
import { RPC_HEADERS, rpc, rpcBody } from './rpc-client.js';

export interface GetTaskMeasurement {
  door: LoadResult;
  raw: LoadResult;
  /** Door requests/s over raw Fastify requests/s, over all rounds. */
  ratio: number;
  /** The same ratio round by round, to show its spread. */
  roundRatios: number[];
  target: number;
  pass: boolean;
  responseBytes: number;
}

const rate = (run: LoadRun) => run.good / run.seconds;

export async function measureGetTask(door: DoorProcess, taskId: string, config: BenchConfig, log: (line: string) => void): Promise<GetTaskMeasurement> {
  const body = rpcBody(METHOD.GetTask, { id: taskId }, 1);
  // The raw endpoint answers with the very task the door answers, so both write the same bytes.
  const sample = await rpc(door.url, METHOD.GetTask, { id: taskId });
  const raw = await startRawEndpoint(sample.result);
  try {
    const verify = (answer: string) => answer.includes('"result"') && answer.includes(taskId);
    const segment = config.seconds / config.rounds;
    const spec = (url: string, pid: number, seconds: number): LoadSpec => ({ url: `${url}/`, pid, connections: config.connections, seconds, headers: RPC_HEADERS, body, verify });
    const rawSpec = spec(raw.url, raw.pid, segment);
    const doorSpec = spec(door.url, door.pid, segment);
    if (config.warmupSeconds > 0) {
      log(`GetTask: warming up raw Fastify and the door (${config.warmupSeconds}s each)`);
      await runLoad({ ...rawSpec, seconds: config.warmupSeconds });
      await runLoad({ ...doorSpec, seconds: config.warmupSeconds });
    }
    const rawRuns: LoadRun[] = [];
    const doorRuns: LoadRun[] = [];
    const roundRatios: number[] = [];
    for (let round = 0; round < config.rounds; round++) {
      log(`GetTask: round ${round + 1}/${config.rounds}, raw Fastify and the door (${segment.toFixed(2)}s each)`);
      const rawFirst = round % 2 === 0;
      const first = await runLoad(rawFirst ? rawSpec : doorSpec);
      const second = await runLoad(rawFirst ? doorSpec : rawSpec);
      const [rawRun, doorRun] = rawFirst ? [first, second] : [second, first];
      rawRuns.push(rawRun);
      doorRuns.push(doorRun);
      roundRatios.push(rate(doorRun) / rate(rawRun));
    }
    const rawResult = summarize(rawRuns);
    const doorResult = summarize(doorRuns);
    const ratio = doorResult.perSecond / rawResult.perSecond;
    return {
      door: doorResult,
      raw: rawResult,
      ratio,
      roundRatios,
      target: TARGETS.getTaskVsRawFastify,
      pass: ratio >= TARGETS.getTaskVsRawFastify,
      responseBytes: Buffer.byteLength(JSON.stringify({ jsonrpc: '2.0', id: 1, result: sample.result })),
    };
  } finally {
    await raw.stop();
  }
}
