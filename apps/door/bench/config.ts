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
  /** When set, the GetTask/SendMessage door and the fan-out door run with --cpu-prof and write their profiles here (BENCH_CPU_PROF_DIR). */
  cpuProfDir: string | null;
  /** WatchSession readers of the fan-out measurement (BENCH_FANOUT_READERS). */
  fanOutReaders: number;
  /** Text chunks the fan-out task streams in one burst (BENCH_FANOUT_CHUNKS). */
  fanOutChunks: number;
  /** Measured fan-out runs, after one unmeasured run that counts the task's events (BENCH_FANOUT_ROUNDS). */
  fanOutRounds: number;
  /** How the fan-out readers read SSE: `lean` (a byte scanner of the door's wire) or `parser` (eventsource-parser) (BENCH_FANOUT_READER). */
  fanOutReader: 'lean' | 'parser';
  /** WatchSession readers of the wide fan-out measurement, one task (BENCH_FANOUT_WIDE_READERS). */
  fanOutWideReaders: number;
  /** Text chunks of the wide fan-out's task (BENCH_FANOUT_WIDE_CHUNKS). */
  fanOutWideChunks: number;
  /** Idle WatchSession connections for the RSS-per-stream figure (BENCH_IDLE_STREAMS). */
  idleStreams: number;
  /** Text chunks of the task streamed past a reader that stopped reading (BENCH_STALL_CHUNKS). */
  stallChunks: number;
  /** Chunks per inference call of that task: each call's chunks are one burst (BENCH_STALL_BURST). */
  stallBurst: number;
  /** Characters of each of its chunks (BENCH_STALL_CHUNK_BYTES). */
  stallChunkBytes: number;
  /** Task counts after which the door's and the SDK server's RSS are read (BENCH_FILL_TASKS, comma-separated). */
  fillTasks: number[];
  /** Fresh `mur run` launches timed to the card being served (BENCH_COLD_STARTS). */
  coldStarts: number;
  /** kill -9 trials of a door running a command, counting the process groups that survive it (BENCH_KILL_TRIALS). */
  killTrials: number;
  /** Foreground calls whose child holds the output, timed from dispatch to result (BENCH_HOLDER_CALLS). */
  holderCalls: number;
  /** Foreground shell calls timed per door, sandboxed and not, after the unmeasured warm-up (BENCH_SHELL_CALLS). */
  shellCalls: number;
  /** Unmeasured foreground shell calls per door first (BENCH_SHELL_WARMUP). */
  shellWarmup: number;
  /** Background command starts timed per door, sandboxed and not (BENCH_SHELL_BG_CALLS). */
  shellBackgroundCalls: number;
  /** `--quick`: shorter runs and smaller sizes, for a look in well under two minutes; env settings still win. */
  quick: boolean;
}

/** Issue 28's targets (docs/benchmarks.md, "Targets"), and the earlier ones that still hold. */
export const TARGETS = {
  /** GetTask requests/s of the door over those of a bare node:http server answering the same bytes, at 16 connections: at least this. */
  getTaskVsNodeHttp: 0.85,
  /** GetTask p50 of the door over node:http's at one connection: at most this. */
  getTaskC1P50VsNodeHttp: 1.1,
  /** Blocking SendMessage tasks/s of the door (durable) over the SDK server's (in memory), at 16 connections: at least this. */
  sendVersusSdkC16: 2.0,
  /** The same at one connection, the door still durable at the answer: at least this. */
  sendVersusSdkC1: 1.0,
  /** Stream events/s of the door over the SDK server's: at least this. */
  streamVersusSdk: 15,
  /** Deliveries/s to 1,000 WatchSession readers of one task (each reader lossless): at least this. */
  fanOutWideDeliveriesPerSecond: 500_000,
  /** The door's idle RSS, MiB: at most this. */
  idleRssMiB: 65,
  /** `mur run` spawned → the agent card answered, median, ms: at most this. */
  coldStartMs: 300,
  /** The door's RSS after 100,000 tasks, MiB: at most this. */
  rss100kMiB: 120,
  /** The deep ListTasks page's median time over the first page's: at most this. */
  deepPageVsFirstPage: 1.5,
  /** Events/s delivered in total across the 50 fan-out readers: at least this. */
  fanOutEventsPerSecond: 100_000,
  /**
   * The door's RSS growth, in MiB, still held once quiet after a task of 30,000 chunks (BENCH_STALL_CHUNKS) that one
   * paused WatchSession reader stopped reading: under this; and on resume every event accounted for exactly.
   */
  stalledGrowthMiB: 64,
  /** Milliseconds the command sandbox adds to a task running one foreground shell call, at p50: at most this. */
  shellSandboxAddedP50Ms: 15,
  /** The same, for a capsule that lists a network destination (the init's relay listens in each sandbox; docs/sandbox.md). */
  shellSandboxNetworkAddedP50Ms: 30,
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

function readerKind(raw: string | undefined): 'lean' | 'parser' {
  const value = raw?.trim() || 'lean';
  if (value !== 'lean' && value !== 'parser') throw new Error(`BENCH_FANOUT_READER must be 'lean' or 'parser', not '${raw}'`);
  return value;
}

function fillMarks(raw: string | undefined, fallback: number[]): number[] {
  if (raw === undefined || raw.trim() === '') return fallback;
  const marks = raw.split(',').map((m) => Number(m.trim()));
  if (marks.some((m, i) => !Number.isInteger(m) || m < 2 || (i > 0 && m <= marks[i - 1])))
    throw new Error(`BENCH_FILL_TASKS must be increasing integers from 2, not '${raw}'`);
  return marks;
}

export function readConfig(argv: readonly string[] = process.argv.slice(2)): BenchConfig {
  const quick = argv.includes('--quick');
  const config: BenchConfig = {
    seconds: number('BENCH_SECONDS', quick ? 3 : 6, positive, 'a positive number of seconds'),
    warmupSeconds: number('BENCH_WARMUP_SECONDS', quick ? 1 : 3, nonNegative, 'a number of seconds'),
    rounds: number('BENCH_ROUNDS', 3, positiveInt, 'a positive integer'),
    connections: number('BENCH_CONNECTIONS', 16, positiveInt, 'a positive integer'),
    seededTasks: number('BENCH_TASKS', quick ? 20_000 : 100_000, positiveInt, 'a positive integer'),
    pageSize: number('BENCH_PAGE_SIZE', 50, positiveInt, 'a positive integer'),
    pageDepth: number('BENCH_PAGE_DEPTH', quick ? 400 : 2000, (n) => Number.isInteger(n) && n >= 2, 'an integer from 2'),
    listSamples: number('BENCH_LIST_SAMPLES', 25, positiveInt, 'a positive integer'),
    cpuProfDir: process.env.BENCH_CPU_PROF_DIR?.trim() || null,
    fanOutReaders: number('BENCH_FANOUT_READERS', 50, positiveInt, 'a positive integer'),
    fanOutChunks: number('BENCH_FANOUT_CHUNKS', 10_000, positiveInt, 'a positive integer'),
    fanOutRounds: number('BENCH_FANOUT_ROUNDS', quick ? 1 : 3, positiveInt, 'a positive integer'),
    fanOutReader: readerKind(process.env.BENCH_FANOUT_READER),
    fanOutWideReaders: number('BENCH_FANOUT_WIDE_READERS', 1000, positiveInt, 'a positive integer'),
    fanOutWideChunks: number('BENCH_FANOUT_WIDE_CHUNKS', quick ? 1000 : 2000, positiveInt, 'a positive integer'),
    idleStreams: number('BENCH_IDLE_STREAMS', 500, positiveInt, 'a positive integer'),
    stallChunks: number('BENCH_STALL_CHUNKS', 30_000, positiveInt, 'a positive integer'),
    stallBurst: number('BENCH_STALL_BURST', 500, positiveInt, 'a positive integer'),
    stallChunkBytes: number('BENCH_STALL_CHUNK_BYTES', 2000, positiveInt, 'a positive integer'),
    fillTasks: fillMarks(process.env.BENCH_FILL_TASKS, quick ? [10_000] : [10_000, 100_000]),
    coldStarts: number('BENCH_COLD_STARTS', quick ? 3 : 5, positiveInt, 'a positive integer'),
    killTrials: number('BENCH_KILL_TRIALS', quick ? 5 : 20, positiveInt, 'a positive integer'),
    holderCalls: number('BENCH_HOLDER_CALLS', quick ? 10 : 30, positiveInt, 'a positive integer'),
    shellCalls: number('BENCH_SHELL_CALLS', quick ? 100 : 200, positiveInt, 'a positive integer'),
    shellWarmup: number('BENCH_SHELL_WARMUP', 20, (n) => Number.isInteger(n) && n >= 0, 'an integer from 0'),
    shellBackgroundCalls: number('BENCH_SHELL_BG_CALLS', quick ? 10 : 20, positiveInt, 'a positive integer'),
    quick,
  };
  if (config.stallChunks % config.stallBurst !== 0) {
    throw new Error(`BENCH_STALL_CHUNKS (${config.stallChunks}) must be a multiple of BENCH_STALL_BURST (${config.stallBurst})`);
  }
  if ((config.pageDepth - 1) * config.pageSize >= config.seededTasks) {
    throw new Error(`page ${config.pageDepth} of ${config.pageSize} tasks needs more than the ${config.seededTasks} seeded tasks (BENCH_TASKS)`);
  }
  return config;
}
