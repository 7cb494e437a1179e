/**
 * Fan-out: one task streams `chunks` text frames in one burst to `readers` murmur.WatchSession
 * connections opened before it starts. Delivered events/s = the task's events received by all readers over the wall
 * time from the first reader receiving the task's first event (its SUBMITTED status, the first frame the door writes
 * for it) to the slowest reader receiving its terminal status. Lag = the spread of the readers' terminal status
 * arrivals. A reader kept up when it got every event of the task (the count an unmeasured run counted), ids in
 * order, and no `lagged` frame.
 *
 * The first run is unmeasured: it warms the door and the readers, and an audit reader (eventsource-parser, every
 * event parsed) counts the task's events — the expected count of the measured runs.
 */
import { METHOD } from '@murmur/protocol';
import type { BenchConfig } from './config.js';
import type { DoorProcess } from './door-process.js';
import { cpuSecondsOf, machineBusySeconds, ownCpuSeconds } from './proc-cpu.js';
import { rssKiB, sampleRss } from './proc-memory.js';
import { rpc, sendParams } from './rpc-client.js';
import { median, quantile, sortedCopy } from './stats.js';
import { documentedFanOutEvents } from './stream-capsule.js';
import { allFinished, openWatchReader, openWatchReaders, type WatchReader } from './watch-reader.js';

export interface FanOutRun {
  /** Events of the task received, summed over the readers. */
  delivered: number;
  /** From the first reader receiving the task's first event to the last reader receiving its terminal status. */
  wallMs: number;
  eventsPerSecond: number;
  /** The door's CPU time (all threads, /proc) over the events delivered, µs; null without /proc. */
  serverCpuMicrosPerDelivery: number | null;
  /** The last reader's terminal status arrival minus the first's. */
  maxLagMs: number;
  /** The median reader's terminal status arrival minus the first's. */
  p50LagMs: number;
  /** From the SendMessage request to the last reader's terminal status. */
  fromRequestMs: number;
  /** Readers that got every event, in order, with no lagged frame. */
  keptUp: number;
  laggedFrames: number;
  dropped: number;
  /** Events missing or extra over all readers, against the expected count. */
  miscounted: number;
  idBreaks: number;
  serverCpu: number | null;
  benchCpu: number;
  otherCpu: number | null;
  /** The door's RSS before the task, and its peak growth while it ran (KiB; null without /proc). */
  rssBeforeKiB: number | null;
  rssPeakGrowthKiB: number | null;
}

/** One fan-out measurement's size and its target. */
export interface FanOutShape {
  readers: number;
  chunks: number;
  rounds: number;
  /** The task's text, naming the capsule's rule that streams `chunks` (stream-capsule.ts). */
  taskText: string;
  /** Events/s delivered in total, at least. */
  target: number;
}

export interface FanOutMeasurement {
  readers: number;
  chunks: number;
  readerKind: string;
  /** The task's events as the audit reader counted them. */
  expectedEvents: number;
  /** The count docs/streaming.md implies (chunks + 5), for comparison. */
  documentedEvents: number;
  /** Bytes of the task's events after its SUBMITTED, as one reader received them (SSE wire), from the audit run. */
  streamBytes: number;
  runs: FanOutRun[];
  /** The run of median events/s. */
  median: FanOutRun;
  target: number;
  pass: boolean;
  /** Every reader of every measured run kept up. */
  lossless: boolean;
}

const TIMEOUT_MS = 60_000;

interface RunSamples {
  server: number | null;
  bench: number;
  machine: number | null;
  seconds: number;
  rssBeforeKiB: number | null;
  rssPeakKiB: number | null;
}

function summarizeRun(readers: WatchReader[], expected: number, requestAt: number, cpu: RunSamples): FanOutRun {
  const tallies = readers.map((r) => r.tally);
  const started = Math.min(...tallies.map((t) => t.startedAt));
  const ends = sortedCopy(tallies.map((t) => t.endedAt));
  const delivered = tallies.reduce((sum, t) => sum + t.events, 0);
  const wallMs = ends[ends.length - 1] - started;
  const keptUp = tallies.filter(
    (t) => t.events === expected && t.laggedFrames === 0 && t.idBreaks === 0 && t.others === 0 && t.malformed === 0 && t.firstId === 0,
  ).length;
  return {
    delivered,
    wallMs,
    eventsPerSecond: delivered / (wallMs / 1000),
    serverCpuMicrosPerDelivery: cpu.server === null || delivered === 0 ? null : (cpu.server / delivered) * 1e6,
    maxLagMs: ends[ends.length - 1] - ends[0],
    p50LagMs: quantile(ends, 0.5) - ends[0],
    fromRequestMs: ends[ends.length - 1] - requestAt,
    keptUp,
    laggedFrames: tallies.reduce((sum, t) => sum + t.laggedFrames, 0),
    dropped: tallies.reduce((sum, t) => sum + t.dropped, 0),
    miscounted: tallies.reduce((sum, t) => sum + Math.abs(t.events - expected), 0),
    idBreaks: tallies.reduce((sum, t) => sum + t.idBreaks, 0),
    serverCpu: cpu.server === null ? null : cpu.server / cpu.seconds,
    benchCpu: cpu.bench / cpu.seconds,
    otherCpu: cpu.machine === null || cpu.server === null ? null : Math.max(0, cpu.machine - cpu.server - cpu.bench) / cpu.seconds,
    rssBeforeKiB: cpu.rssBeforeKiB,
    rssPeakGrowthKiB: cpu.rssBeforeKiB === null || cpu.rssPeakKiB === null ? null : cpu.rssPeakKiB - cpu.rssBeforeKiB,
  };
}

let nextMessage = 1;

/** Opens the readers, starts the task, waits for every reader to see it end. */
async function runOnce(
  door: DoorProcess,
  config: BenchConfig,
  shape: FanOutShape,
  audit: boolean,
): Promise<{ readers: WatchReader[]; taskId: string; requestAt: number; cpu: RunSamples }> {
  const readers = await openWatchReaders(door.url, shape.readers, config.fanOutReader);
  if (audit) readers.push(await openWatchReader(door.url, 'audit'));
  let rssPeakKiB = 0;
  try {
    const serverBefore = cpuSecondsOf(door.pid);
    const benchBefore = ownCpuSeconds();
    const machineBefore = machineBusySeconds();
    const rssBeforeKiB = rssKiB(door.pid);
    const rss = sampleRss(door.pid);
    const requestAt = performance.now();
    // Blocking: answered once the task completed, by which time the door has handed every event to the connections.
    const sent = rpc(door.url, METHOD.SendMessage, sendParams(shape.taskText, `msg-bench-fanout-${process.pid}-${nextMessage++}`));
    // Awaited below; until then a failure must not surface as an unhandled rejection.
    sent.catch(() => undefined);
    try {
      await allFinished(readers, TIMEOUT_MS, 'fan-out');
    } finally {
      rssPeakKiB = rss.stop().maxKiB;
    }
    const seconds = (performance.now() - requestAt) / 1000;
    const serverAfter = cpuSecondsOf(door.pid);
    const machineAfter = machineBusySeconds();
    const task = (await sent).result.task as { id?: unknown; status?: { state?: unknown } } | undefined;
    if (typeof task?.id !== 'string' || task.status?.state !== 'TASK_STATE_COMPLETED')
      throw new Error(`the fan-out task did not complete: ${JSON.stringify(task?.status)}`);
    const strangers = readers.filter((r) => r.tally.taskId !== task.id);
    if (strangers.length > 0) throw new Error(`${strangers.length} readers followed task ${strangers[0].tally.taskId}, not ${task.id}`);
    return {
      readers,
      taskId: task.id,
      requestAt,
      cpu: {
        server: serverBefore === null || serverAfter === null ? null : serverAfter - serverBefore,
        bench: ownCpuSeconds() - benchBefore,
        machine: machineBefore === null || machineAfter === null ? null : machineAfter - machineBefore,
        seconds,
        rssBeforeKiB,
        rssPeakKiB: rssBeforeKiB === null ? null : rssPeakKiB,
      },
    };
  } finally {
    for (const reader of readers) reader.close();
  }
}

/** The task's events as the audit reader parsed them: SUBMITTED, then every event naming the task, up to its end. */
function auditCount(reader: WatchReader, taskId: string): number {
  const kept = reader.kept ?? [];
  const foreign = kept.filter((e) => !Object.values(e.data.result ?? {}).some((v) => v?.taskId === taskId));
  if (foreign.length > 0)
    throw new Error(`the audit reader got ${foreign.length} events not of the task (first: ${JSON.stringify(foreign[0].data).slice(0, 300)})`);
  const last = kept.at(-1)?.data.result?.statusUpdate;
  if (last?.status?.state !== 'TASK_STATE_COMPLETED') throw new Error('the audit reader did not end on the task’s COMPLETED status');
  return 1 + kept.length;
}

export async function measureFanOut(door: DoorProcess, config: BenchConfig, shape: FanOutShape, log: (line: string) => void): Promise<FanOutMeasurement> {
  log(`fan-out: unmeasured run, ${shape.readers} ${config.fanOutReader} readers and an audit reader, ${shape.chunks} chunks`);
  const warm = await runOnce(door, config, shape, true);
  const auditor = warm.readers.at(-1)!;
  const expected = auditCount(auditor, warm.taskId);
  const documented = documentedFanOutEvents(shape.chunks);
  if (expected !== documented) log(`fan-out: NOTE the task emitted ${expected} events, docs/streaming.md implies ${documented}`);
  const warmRun = summarizeRun(warm.readers.slice(0, -1), expected, warm.requestAt, warm.cpu);
  if (warmRun.keptUp !== shape.readers) {
    log(
      `fan-out: in the unmeasured run ${shape.readers - warmRun.keptUp} readers disagreed with the audit count ${expected} (lagged ${warmRun.laggedFrames}, id breaks ${warmRun.idBreaks})`,
    );
  }

  const runs: FanOutRun[] = [];
  for (let round = 0; round < shape.rounds; round++) {
    const once = await runOnce(door, config, shape, false);
    const run = summarizeRun(once.readers, expected, once.requestAt, once.cpu);
    log(
      `fan-out ×${shape.readers}: run ${round + 1}/${shape.rounds}: ${Math.round(run.eventsPerSecond).toLocaleString('en-US')} events/s over ${run.wallMs.toFixed(0)} ms, ` +
        `max lag ${run.maxLagMs.toFixed(1)} ms, ${run.keptUp}/${shape.readers} readers kept up` +
        (run.rssBeforeKiB === null || run.rssPeakGrowthKiB === null
          ? ''
          : `, door RSS ${(run.rssBeforeKiB / 1024).toFixed(0)} MiB +${(run.rssPeakGrowthKiB / 1024).toFixed(0)} MiB at peak`),
    );
    runs.push(run);
  }
  const rate = median(runs.map((r) => r.eventsPerSecond));
  const medianRun = runs.find((r) => r.eventsPerSecond === rate) ?? runs[0];
  return {
    readers: shape.readers,
    chunks: shape.chunks,
    readerKind: config.fanOutReader,
    expectedEvents: expected,
    documentedEvents: documented,
    streamBytes: auditor.tally.taskBytes,
    runs,
    median: medianRun,
    target: shape.target,
    pass: medianRun.eventsPerSecond >= shape.target,
    lossless: runs.every((r) => r.keptUp === shape.readers),
  };
}
