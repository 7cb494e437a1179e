/** Bench settings, read once from the environment so CI can shorten or lengthen a run without editing code. */

export interface BenchConfig {
  /** Seconds of measured load per throughput measurement (BENCH_SECONDS). */
  seconds: number;
  /** Seconds of unmeasured load before each measurement, to warm the JIT and the connections (BENCH_WARMUP_SECONDS). */
  warmupSeconds: number;
  /** GetTask alternates raw Fastify and the door this many times, `seconds / rounds` each (BENCH_ROUNDS). */
  rounds: number;
  /** Concurrent keep-alive connections of the load generator (BENCH_CONNECTIONS). */
  connections: number;
  /** Tasks seeded into the ListTasks session's store (BENCH_TASKS). */
  seededTasks: number;
  /** ListTasks page size (BENCH_PAGE_SIZE). */
  pageSize: number;
  /** The deep page's 1-based number: its token names the last row of the page before it (BENCH_PAGE_DEPTH). */
  pageDepth: number;
  /** Timed ListTasks requests per page, of which the median is reported (BENCH_LIST_SAMPLES). */
  listSamples: number;
  /** When set, the GetTask/SendMessage door runs with --cpu-prof and writes its profile here (BENCH_CPU_PROF_DIR). */
  cpuProfDir: string | null;
}

export const TARGETS = {
  /** GetTask requests/s of the door over those of a raw Fastify endpoint: at least this. */
  getTaskVsRawFastify: 0.5,
  /** The deep ListTasks page's median time over the first page's: at most this. */
  deepPageVsFirstPage: 1.5,
} as const;

function number(name: string, fallback: number, check: (n: number) => boolean, what: string): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || !check(value)) throw new Error(`${name} must be ${what}, not '${raw}'`);
  return value;
}

const positive = (n: number) => n > 0;
const positiveInt = (n: number) => Number.isInteger(n) && n > 0;
const nonNegative = (n: number) => n >= 0;

export function readConfig(): BenchConfig {
  const config: BenchConfig = {
    seconds: number('BENCH_SECONDS', 5, positive, 'a positive number of seconds'),
    warmupSeconds: number('BENCH_WARMUP_SECONDS', 1, nonNegative, 'a number of seconds'),
    rounds: number('BENCH_ROUNDS', 3, positiveInt, 'a positive integer'),
    connections: number('BENCH_CONNECTIONS', 16, positiveInt, 'a positive integer'),
    seededTasks: number('BENCH_TASKS', 100_000, positiveInt, 'a positive integer'),
    pageSize: number('BENCH_PAGE_SIZE', 50, positiveInt, 'a positive integer'),
    pageDepth: number('BENCH_PAGE_DEPTH', 2000, (n) => Number.isInteger(n) && n >= 2, 'an integer from 2'),
    listSamples: number('BENCH_LIST_SAMPLES', 25, positiveInt, 'a positive integer'),
    cpuProfDir: process.env.BENCH_CPU_PROF_DIR?.trim() || null,
  };
  if ((config.pageDepth - 1) * config.pageSize >= config.seededTasks) {
    throw new Error(`page ${config.pageDepth} of ${config.pageSize} tasks needs more than the ${config.seededTasks} seeded tasks (BENCH_TASKS)`);
  }
  return config;
}
