/**
 * The load generator: autocannon in the bench process, keep-alive connections, one request in flight per
 * connection. Latencies are taken from autocannon's per-response event (sub-millisecond floats) rather than its
 * histogram, which rounds to whole milliseconds.
 */
import autocannon from 'autocannon';
import { cpuSecondsOf, machineBusySeconds, ownCpuSeconds } from './proc-cpu.js';
import { quantile, sortedCopy } from './stats.js';

export interface LoadSpec {
  url: string;
  /** The server's process id, for its CPU share while loaded. */
  pid: number;
  connections: number;
  seconds: number;
  headers: Record<string, string>;
  /** Request body; `[<id>]` in it is replaced by a fresh id on every request. */
  body: string;
  /** True when a response body is the answer the measurement counts; others are mismatches. */
  verify: (body: string) => boolean;
}

/** One autocannon run, as counted. */
export interface LoadRun {
  seconds: number;
  /** 2xx responses that passed `verify`. */
  good: number;
  latenciesMs: number[];
  errors: number;
  timeouts: number;
  non2xx: number;
  mismatches: number;
  serverCpuSeconds: number | null;
  benchCpuSeconds: number;
  machineBusySeconds: number | null;
}

/** One or more runs against one server, summed. */
export interface LoadResult {
  /** Responses that passed `verify`, per second of the runs. */
  perSecond: number;
  responses: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  mismatches: number;
  seconds: number;
  runs: number;
  /** The server process's CPU use, in cores (1 = one core busy throughout); null without /proc. */
  serverCpu: number | null;
  /** The bench process's own CPU use, in cores. */
  generatorCpu: number;
  /** CPU the machine spent on anything but the server and the bench (other processes, stolen time), in cores. */
  otherCpu: number | null;
}

export function runLoad(spec: LoadSpec): Promise<LoadRun> {
  const latenciesMs: number[] = [];
  const serverBefore = cpuSecondsOf(spec.pid);
  const benchBefore = ownCpuSeconds();
  const machineBefore = machineBusySeconds();
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: spec.url,
        method: 'POST',
        headers: spec.headers,
        body: spec.body,
        idReplacement: spec.body.includes('[<id>]'),
        connections: spec.connections,
        pipelining: 1,
        duration: spec.seconds,
        // autocannon stops on its sampling tick: a 100 ms tick ends a run within 0.1 s of `seconds`, not on a whole second.
        sampleInt: 100,
        verifyBody: (body) => typeof body === 'string' && spec.verify(body),
      },
      (error: unknown, result) => {
        if (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
          return;
        }
        const serverAfter = cpuSecondsOf(spec.pid);
        const machineAfter = machineBusySeconds();
        resolve({
          seconds: result.duration,
          good: result['2xx'] - result.mismatches,
          latenciesMs,
          errors: result.errors,
          timeouts: result.timeouts,
          non2xx: result.non2xx,
          mismatches: result.mismatches,
          serverCpuSeconds: serverBefore === null || serverAfter === null ? null : serverAfter - serverBefore,
          benchCpuSeconds: ownCpuSeconds() - benchBefore,
          machineBusySeconds: machineBefore === null || machineAfter === null ? null : machineAfter - machineBefore,
        });
      },
    );
    instance.on('response', (_client, _status, _bytes, responseTime) => {
      latenciesMs.push(responseTime);
    });
  });
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
const sumOrNull = (values: (number | null)[]) => (values.some((v) => v === null) ? null : sum(values as number[]));

export function summarize(runs: LoadRun[]): LoadResult {
  const seconds = sum(runs.map((r) => r.seconds));
  const latencies = sortedCopy(runs.flatMap((r) => r.latenciesMs));
  const server = sumOrNull(runs.map((r) => r.serverCpuSeconds));
  const machine = sumOrNull(runs.map((r) => r.machineBusySeconds));
  const bench = sum(runs.map((r) => r.benchCpuSeconds));
  return {
    perSecond: sum(runs.map((r) => r.good)) / seconds,
    responses: latencies.length,
    p50Ms: quantile(latencies, 0.5),
    p99Ms: quantile(latencies, 0.99),
    meanMs: sum(Array.from(latencies)) / Math.max(1, latencies.length),
    errors: sum(runs.map((r) => r.errors)),
    timeouts: sum(runs.map((r) => r.timeouts)),
    non2xx: sum(runs.map((r) => r.non2xx)),
    mismatches: sum(runs.map((r) => r.mismatches)),
    seconds,
    runs: runs.length,
    serverCpu: server === null ? null : server / seconds,
    generatorCpu: bench / seconds,
    otherCpu: machine === null || server === null ? null : Math.max(0, machine - server - bench) / seconds,
  };
}
