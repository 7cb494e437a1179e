/**
 * One stream after another of a task that streams STREAM_CHUNKS text chunks (SendStreamingMessage, the murmur
 * stream extension activated so that the door sends its text frames), against the door and the SDK's server in
 * alternating rounds. events/s = SSE events received / wall time of the round, request to last byte included: what
 * one client following one streamed task at a time gets.
 */
import http from 'node:http';
import { METHOD, STREAM_EXTENSION_URI } from '@murmur/protocol';
import { STREAM_TASK_TEXT } from './capsule.js';
import type { BenchConfig } from './config.js';
import { cpuSecondsOf } from './proc-cpu.js';
import { RPC_HEADERS, rpcBody, sendParams } from './rpc-client.js';
import { median } from './stats.js';

interface StreamRound {
  eventsPerSecond: number;
  streams: number;
  eventsPerStream: number;
  /** The server's CPU per event, in µs; null without /proc. */
  cpuMicrosPerEvent: number | null;
}

interface StreamRate {
  rounds: StreamRound[];
  medianEventsPerSecond: number;
  medianCpuMicrosPerEvent: number | null;
}

export interface StreamVersusSdk {
  door: StreamRate;
  sdk: StreamRate;
  ratio: number;
}

interface Target {
  url: string;
  pid: number;
  headers: Record<string, string>;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
let messages = 0;

/** One stream to its end; resolves with the number of events (blank-line terminated) it held. */
function oneStream(target: Target): Promise<number> {
  const body = rpcBody(METHOD.SendStreamingMessage, sendParams(STREAM_TASK_TEXT, `msg-stream-${++messages}`), 1);
  return new Promise((resolve, reject) => {
    const req = http.request(`${target.url}/`, { method: 'POST', agent, headers: { ...target.headers, 'content-length': Buffer.byteLength(body) } }, (res) => {
      let events = 0;
      let lastByte = 0;
      res.on('data', (chunk: Buffer) => {
        // Events end with a blank line: count "\n\n", including one split across two chunks.
        if (lastByte === 0x0a && chunk[0] === 0x0a) events++;
        for (let i = chunk.indexOf(0x0a); i !== -1 && i < chunk.length - 1; i = chunk.indexOf(0x0a, i + 1)) {
          if (chunk[i + 1] === 0x0a) events++;
        }
        lastByte = chunk[chunk.length - 1];
      });
      res.on('end', () => resolve(events));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function round(target: Target, seconds: number): Promise<StreamRound> {
  const cpuBefore = cpuSecondsOf(target.pid);
  const started = performance.now();
  let events = 0;
  let streams = 0;
  while (performance.now() - started < seconds * 1000) {
    events += await oneStream(target);
    streams++;
  }
  const wall = (performance.now() - started) / 1000;
  const cpuAfter = cpuSecondsOf(target.pid);
  return {
    eventsPerSecond: events / wall,
    streams,
    eventsPerStream: events / Math.max(1, streams),
    cpuMicrosPerEvent: cpuBefore === null || cpuAfter === null ? null : ((cpuAfter - cpuBefore) / Math.max(1, events)) * 1e6,
  };
}

function rateOf(rounds: StreamRound[]): StreamRate {
  const cpus = rounds.map((r) => r.cpuMicrosPerEvent);
  return {
    rounds,
    medianEventsPerSecond: median(rounds.map((r) => r.eventsPerSecond)),
    medianCpuMicrosPerEvent: cpus.some((c) => c === null) ? null : median(cpus as number[]),
  };
}

export async function measureStreamVersusSdk(
  door: { url: string; pid: number },
  sdk: { url: string; pid: number },
  config: BenchConfig,
  log: (line: string) => void,
): Promise<StreamVersusSdk> {
  const doorTarget: Target = { ...door, headers: { ...RPC_HEADERS, 'a2a-extensions': STREAM_EXTENSION_URI } };
  const sdkTarget: Target = { ...sdk, headers: RPC_HEADERS };
  const segment = config.seconds / config.rounds;
  if (config.warmupSeconds > 0) {
    log(`streams: warming up the door and the SDK server (${config.warmupSeconds}s each)`);
    await round(doorTarget, config.warmupSeconds);
    await round(sdkTarget, config.warmupSeconds);
  }
  const doorRounds: StreamRound[] = [];
  const sdkRounds: StreamRound[] = [];
  for (let i = 0; i < config.rounds; i++) {
    log(`streams: round ${i + 1}/${config.rounds}, the door and the SDK server (${segment.toFixed(2)}s each)`);
    const doorFirst = i % 2 === 0;
    const first = await round(doorFirst ? doorTarget : sdkTarget, segment);
    const second = await round(doorFirst ? sdkTarget : doorTarget, segment);
    doorRounds.push(doorFirst ? first : second);
    sdkRounds.push(doorFirst ? second : first);
  }
  const doorRate = rateOf(doorRounds);
  const sdkRate = rateOf(sdkRounds);
  return { door: doorRate, sdk: sdkRate, ratio: doorRate.medianEventsPerSecond / sdkRate.medianEventsPerSecond };
}
