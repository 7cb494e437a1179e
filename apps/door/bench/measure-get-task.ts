/**
 * GetTask on a real door beside two anchors answering the same JSON — a raw Fastify endpoint and a bare node:http
 * server, each its own process — with the same load generator in the same run, at 16 connections (throughput) and at
 * 1 (latency). The three rotate round by round (door, Fastify, node:http; then Fastify, node:http, door; …) so that a
 * burst of outside load on a shared machine weighs on each rather than on one. CPU a request is the server's CPU time
 * (/proc, all threads) over the answers it gave.
 */
import { METHOD } from '@murmur/protocol';
import type { BenchConfig } from './config.js';
import type { DoorProcess } from './door-process.js';
import { type LoadResult, type LoadRun, type LoadSpec, runLoad, summarize } from './load.js';
import { type RawEndpoint, startNodeHttpEndpoint, startRawEndpoint } from './raw-endpoint.js';
import { RPC_HEADERS, rpc, rpcBody } from './rpc-client.js';

const SERVERS = ['door', 'fastify', 'nodeHttp'] as const;
type ServerName = (typeof SERVERS)[number];

export interface GetTaskServer {
  result: LoadResult;
  /** Server CPU a good answer, µs, over all rounds; null without /proc. */
  cpuMicrosPerRequest: number | null;
}

export interface GetTaskAtConnections {
  connections: number;
  door: GetTaskServer;
  fastify: GetTaskServer;
  nodeHttp: GetTaskServer;
  /** Door requests/s over node:http's and over raw Fastify's, over all rounds. */
  doorVsNodeHttp: number;
  doorVsFastify: number;
  /** Door over node:http round by round, to show the spread; the figure above is of the sums. */
  roundRatios: number[];
  /** Door p50 over node:http p50 (the c1 latency target). */
  p50VsNodeHttp: number;
}

export interface GetTaskMeasurement {
  /** At BENCH_CONNECTIONS (16 by default). */
  many: GetTaskAtConnections;
  /** At one connection: one request in flight, the latency of one answer. */
  one: GetTaskAtConnections;
  responseBytes: number;
}

const rate = (run: LoadRun) => run.good / run.seconds;

function serverFigures(runs: LoadRun[]): GetTaskServer {
  const cpu = runs.some((r) => r.serverCpuSeconds === null) ? null : runs.reduce((sum, r) => sum + (r.serverCpuSeconds ?? 0), 0);
  const good = runs.reduce((sum, r) => sum + r.good, 0);
  return { result: summarize(runs), cpuMicrosPerRequest: cpu === null || good === 0 ? null : (cpu / good) * 1e6 };
}

async function measureAt(
  connections: number,
  endpoints: Record<ServerName, { url: string; pid: number }>,
  body: string,
  verify: (answer: string) => boolean,
  config: BenchConfig,
  log: (line: string) => void,
): Promise<GetTaskAtConnections> {
  const segment = config.seconds / config.rounds;
  const spec = (name: ServerName, seconds: number): LoadSpec => ({
    url: `${endpoints[name].url}/`,
    pid: endpoints[name].pid,
    connections,
    seconds,
    headers: RPC_HEADERS,
    body,
    verify,
  });
  if (config.warmupSeconds > 0) {
    log(`GetTask c${connections}: warming up the door, raw Fastify and node:http (${config.warmupSeconds}s each)`);
    for (const name of SERVERS) await runLoad(spec(name, config.warmupSeconds));
  }
  const runs: Record<ServerName, LoadRun[]> = { door: [], fastify: [], nodeHttp: [] };
  const roundRatios: number[] = [];
  for (let round = 0; round < config.rounds; round++) {
    const order = SERVERS.map((_, i) => SERVERS[(i + round) % SERVERS.length]);
    log(`GetTask c${connections}: round ${round + 1}/${config.rounds}, ${order.join(', ')} (${segment.toFixed(2)}s each)`);
    const thisRound = {} as Record<ServerName, LoadRun>;
    for (const name of order) thisRound[name] = await runLoad(spec(name, segment));
    for (const name of SERVERS) runs[name].push(thisRound[name]);
    roundRatios.push(rate(thisRound.door) / rate(thisRound.nodeHttp));
  }
  const [door, fastify, nodeHttp] = SERVERS.map((name) => serverFigures(runs[name]));
  return {
    connections,
    door,
    fastify,
    nodeHttp,
    doorVsNodeHttp: door.result.perSecond / nodeHttp.result.perSecond,
    doorVsFastify: door.result.perSecond / fastify.result.perSecond,
    roundRatios,
    p50VsNodeHttp: door.result.p50Ms / nodeHttp.result.p50Ms,
  };
}

export async function measureGetTask(door: DoorProcess, taskId: string, config: BenchConfig, log: (line: string) => void): Promise<GetTaskMeasurement> {
  const body = rpcBody(METHOD.GetTask, { id: taskId }, 1);
  // The anchors answer with the very task the door answers, so all three write the same bytes.
  const sample = await rpc(door.url, METHOD.GetTask, { id: taskId });
  const anchors: RawEndpoint[] = [];
  try {
    const fastify = await startRawEndpoint(sample.result);
    anchors.push(fastify);
    const nodeHttp = await startNodeHttpEndpoint(sample.result);
    anchors.push(nodeHttp);
    const endpoints = { door, fastify, nodeHttp };
    const verify = (answer: string) => answer.includes('"result"') && answer.includes(taskId);
    const many = await measureAt(config.connections, endpoints, body, verify, config, log);
    const one = await measureAt(1, endpoints, body, verify, config, log);
    return { many, one, responseBytes: Buffer.byteLength(JSON.stringify({ jsonrpc: '2.0', id: 1, result: sample.result })) };
  } finally {
    for (const anchor of anchors) await anchor.stop();
  }
}
