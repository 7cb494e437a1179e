/**
 * The processes' footprint: RSS idle (started, one task answered, settled), then after 10,000 and 100,000 blocking
 * SendMessage tasks (BENCH_FILL_TASKS), for the door (durable, rows mirrored in memory) and the SDK's server (its
 * in-memory store keeps every task); the raw Fastify and bare node:http endpoints' idle RSS as the floors. And cold start: `mur run` to
 * the public card answered, median of BENCH_COLD_STARTS fresh sessions. Each reading is taken once the server was
 * quiet for FOOTPRINT_SETTLE_MS (a door collects its garbage when it goes quiet: src/memory/quiet-collector.ts), and the
 * largest RSS seen while the tasks were sent is kept beside it.
 */
import path from 'node:path';
import autocannon from 'autocannon';
import { METHOD } from '@murmur/protocol';
import { BENCH_TASK_TEXT } from './capsule.js';
import type { BenchConfig } from './config.js';
import { startDoor } from './door-process.js';
import { sampleRss, settledRssKiB } from './proc-memory.js';
import { RPC_HEADERS, rpcBody, sendParams } from './rpc-client.js';
import { median } from './stats.js';

export interface FootprintPoint {
  tasks: number;
  /** Settled: FOOTPRINT_SETTLE_MS after the last task was answered. */
  rssKiB: number;
  /** The largest RSS read while these tasks were sent (every 50 ms); absent for the idle point. */
  peakKiB?: number;
  /** The last mark only, when asked: RSS after FOOTPRINT_REST_MS at rest (V8 gives pages back seconds after a collection). */
  restKiB?: number;
}

/** How long a server is left quiet before its RSS is read: longer than a door takes to collect once quiet. */
export const FOOTPRINT_SETTLE_MS = 1000;

/** How long the door is left at rest after the last mark before its resting RSS is read. */
export const FOOTPRINT_REST_MS = 30_000;

export interface Footprint {
  door: FootprintPoint[];
  sdk: FootprintPoint[];
  rawIdleKiB: number;
  /** The bare node:http endpoint's idle RSS: the floor of any server on Node. */
  nodeHttpIdleKiB: number;
}

export interface ColdStart {
  samples: number[];
  medianMs: number;
  /** Of which: spawn to the door's announcement (listening, store open). */
  medianAnnounceMs: number;
}

/** Sends `amount` blocking SendMessage tasks over 16 connections; throws when any failed. */
function sendTasks(url: string, amount: number): Promise<void> {
  const body = rpcBody(METHOD.SendMessage, sendParams(BENCH_TASK_TEXT, 'msg-fill-[<id>]'), 1);
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: `${url}/`,
        method: 'POST',
        headers: RPC_HEADERS,
        body,
        idReplacement: true,
        connections: Math.min(16, amount),
        pipelining: 1,
        amount,
        timeout: 30,
      },
      (error: unknown, result) => {
        if (error) reject(error instanceof Error ? error : new Error(String(error)));
        else if (result['2xx'] !== amount)
          reject(new Error(`of ${amount} fill tasks, ${result['2xx']} were answered 2xx (${result.errors} errors, ${result.non2xx} non-2xx)`));
        else resolve();
      },
    );
  });
}

/** RSS of a server at idle (after one task) and after each count of tasks in `marks`. */
export async function fill(
  server: { url: string; pid: number },
  marks: number[],
  label: string,
  log: (line: string) => void,
  restMs = 0,
): Promise<FootprintPoint[]> {
  await sendTasks(server.url, 1);
  const points: FootprintPoint[] = [{ tasks: 1, rssKiB: await settledRssKiB(server.pid, FOOTPRINT_SETTLE_MS) }];
  let sent = 1;
  for (const mark of marks) {
    log(`footprint: ${label}: sending tasks up to ${mark.toLocaleString('en-US')}`);
    const sampler = sampleRss(server.pid, 50);
    await sendTasks(server.url, mark - sent);
    const { maxKiB } = sampler.stop();
    sent = mark;
    points.push({ tasks: mark, rssKiB: await settledRssKiB(server.pid, FOOTPRINT_SETTLE_MS), peakKiB: maxKiB });
  }
  if (restMs > 0 && points.length > 1) {
    log(`footprint: ${label}: at rest for ${restMs / 1000} s`);
    points[points.length - 1]!.restKiB = await settledRssKiB(server.pid, restMs);
  }
  return points;
}

export async function measureColdStart(root: string, capsuleDir: string, config: BenchConfig, log: (line: string) => void): Promise<ColdStart> {
  const samples: number[] = [];
  const announce: number[] = [];
  for (let i = 0; i < config.coldStarts; i++) {
    log(`cold start ${i + 1}/${config.coldStarts}`);
    const started = performance.now();
    const door = await startDoor({ home: path.join(root, `home-cold-${i}`), capsuleDir });
    try {
      const card = await fetch(`${door.url}/.well-known/agent-card.json`);
      await card.arrayBuffer();
      if (card.status !== 200) throw new Error(`the card answered HTTP ${card.status}`);
      samples.push(performance.now() - started);
      announce.push(door.startMs);
    } finally {
      await door.stop();
    }
  }
  return { samples, medianMs: median(samples), medianAnnounceMs: median(announce) };
}
