/**
 * The door's memory under streams, on a door of its own (RSS from /proc/<pid>/status):
 *
 * - Idle streams: RSS with no stream open, then with `idleStreams` murmur.WatchSession connections open and no task
 *   running; (RSS_N − RSS_0) / N is what one idle stream costs.
 * - A stalled reader: one WatchSession reader stops reading (its socket paused after the connection-ack) while the
 *   stall task (`stallChunks` chunks of `stallChunkBytes` characters, in bursts of `stallBurst`) runs. What the door
 *   still holds once it is quiet (RSS `FOOTPRINT_SETTLE_MS` after the task, over the reading just before it, the
 *   reader still paused and connected) must stay under the bound. What the stalled connection may hold is its queue
 *   of 128 events and the one burst its blocked write was handed (about 0.3 + 1.2 MB by default; the socket buffers
 *   are kernel memory, not RSS), plus the replay buffer's 512 events (1.2 MB) and the task's transcript (at most
 *   4 Mi characters). A door that kept everything for the stalled reader would hold the whole stream: the control
 *   reader's byte count, over 100 MiB by default, well past the bound of 64 MiB. The peak while the task runs is
 *   reported, not bounded: it is the garbage of rendering 100 MiB of bursts before V8 collects it, which a reader
 *   that keeps up causes too (the control run's peak). Then the reader resumes and must get a `lagged` frame, with
 *   every event of the task either received or counted as dropped, and ids in order around the drop.
 * - The control: the same task to a reader that keeps up, after the stalled run: the stream's size, its events.
 */
import { METHOD } from '@murmur/protocol';
import type { BenchConfig } from './config.js';
import { TARGETS } from './config.js';
import type { DoorProcess } from './door-process.js';
import { FOOTPRINT_SETTLE_MS } from './measure-footprint.js';
import { rssKiB, sampleRss, settledRssKiB } from './proc-memory.js';
import { rpc, sendParams } from './rpc-client.js';
import { STALL_TASK_TEXT, stallTaskEvents } from './stream-capsule.js';
import { allFinished, openWatchReader, openWatchReaders, type WatchReader } from './watch-reader.js';

interface IdleStreamsMeasurement {
  streams: number;
  rssBeforeKiB: number;
  rssOpenKiB: number;
  perStreamKiB: number;
}

interface StalledReaderMeasurement {
  chunks: number;
  chunkBytes: number;
  burst: number;
  expectedEvents: number;
  /**
   * The task's SSE bytes as the control reader received them: what a door keeping everything would hold. When the
   * control reader fell behind too (the bench shares the CPUs), its dropped events are counted at its mean event size.
   */
  streamBytes: number;
  /** The control reader got every event (streamBytes is then exact). */
  controlKeptUp: boolean;
  /** The control run (a reader that keeps up): RSS before it and its peak growth. */
  controlBaselineKiB: number;
  controlGrowthKiB: number;
  controlMs: number;
  /** The stalled run: RSS before it, its peak growth while the task ran, and the growth still held once the door was quiet after it. */
  baselineKiB: number;
  peakGrowthKiB: number;
  heldGrowthKiB: number;
  stalledMs: number;
  /** What the resumed reader got. */
  received: number;
  laggedFrames: number;
  dropped: number;
  idBreaks: number;
  /** received + dropped = expectedEvents, and the reader ended on the task's COMPLETED status. */
  accounted: boolean;
  /** What the control reader (it reads as fast as it can) got of the same task: events, and those a lagged frame counted. */
  controlReceived: number;
  controlDropped: number;
  /**
   * Every event accounted for exactly: the stalled reader's received + dropped equals what the control reader
   * received, and the control lost nothing (no lagged frame), so that count is what a reader that kept up got.
   */
  exact: boolean;
  boundMiB: number;
  /** Growth under the bound, at least one lagged frame, every event accounted for. */
  pass: boolean;
}

export interface StreamMemoryMeasurement {
  idle: IdleStreamsMeasurement;
  stalled: StalledReaderMeasurement;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let nextMessage = 1;
const stallTask = (door: DoorProcess) => rpc(door.url, METHOD.SendMessage, sendParams(STALL_TASK_TEXT, `msg-bench-stall-${process.pid}-${nextMessage++}`));

async function measureIdle(door: DoorProcess, config: BenchConfig, log: (line: string) => void): Promise<IdleStreamsMeasurement> {
  // A few streams first, so that code run once per process (routes, compilation) is not charged to the idle streams.
  const warm = await openWatchReaders(door.url, 10);
  for (const reader of warm) reader.close();
  const rssBeforeKiB = await settledRssKiB(door.pid, 500);
  log(`memory: opening ${config.idleStreams} idle WatchSession streams (RSS before: ${(rssBeforeKiB / 1024).toFixed(1)} MiB)`);
  const readers = await openWatchReaders(door.url, config.idleStreams);
  try {
    const rssOpenKiB = await settledRssKiB(door.pid, 500);
    const broken = readers.filter((r) => r.error !== null);
    if (broken.length > 0) throw new Error(`${broken.length} idle streams failed: ${broken[0].error?.message}`);
    return { streams: config.idleStreams, rssBeforeKiB, rssOpenKiB, perStreamKiB: (rssOpenKiB - rssBeforeKiB) / config.idleStreams };
  } finally {
    for (const reader of readers) reader.close();
  }
}

async function measureStalled(door: DoorProcess, config: BenchConfig, log: (line: string) => void): Promise<StalledReaderMeasurement> {
  const expected = stallTaskEvents(config);
  const boundMiB = TARGETS.stalledGrowthMiB;

  // The stalled run first, from the idle door: its growth also counts the heap that rendering the task takes.
  const stalled: WatchReader = await openWatchReader(door.url);
  let stalledPart: Omit<
    StalledReaderMeasurement,
    'streamBytes' | 'controlKeptUp' | 'controlBaselineKiB' | 'controlGrowthKiB' | 'controlMs' | 'controlReceived' | 'controlDropped' | 'exact' | 'pass'
  >;
  try {
    stalled.pause();
    const baselineKiB = await settledRssKiB(door.pid);
    log(
      `memory: stalled run, ${config.stallChunks} chunks of ${config.stallChunkBytes} B past one paused reader (door RSS ${(baselineKiB / 1024).toFixed(1)} MiB)`,
    );
    const started = performance.now();
    const sampler = sampleRss(door.pid);
    // Blocking: answered once the task completed; the stalled connection does not hold the task back.
    await stallTask(door);
    const stalledMs = performance.now() - started;
    const peak = sampler.stop();
    // Once the door is quiet it collects (src/memory/quiet-collector.ts): what it holds then is what it keeps.
    const held = await settledRssKiB(door.pid, FOOTPRINT_SETTLE_MS, 3);
    stalled.resume();
    await allFinished([stalled], 60_000, 'the resumed reader');
    const t = stalled.tally;
    stalledPart = {
      chunks: config.stallChunks,
      chunkBytes: config.stallChunkBytes,
      burst: config.stallBurst,
      expectedEvents: expected,
      baselineKiB,
      peakGrowthKiB: Math.max(peak.maxKiB, held) - baselineKiB,
      heldGrowthKiB: held - baselineKiB,
      stalledMs,
      received: t.events,
      laggedFrames: t.laggedFrames,
      dropped: t.dropped,
      idBreaks: t.idBreaks,
      accounted: t.events + t.dropped === expected && t.terminalState === 'TASK_STATE_COMPLETED',
      boundMiB,
    };
  } finally {
    stalled.close();
  }

  // The control: the same task to a reader that keeps up, for the stream's size and its count of events.
  log('memory: control run, the same task to a reader that reads');
  const control = await openWatchReader(door.url);
  try {
    const controlBaselineKiB = await settledRssKiB(door.pid);
    const started = performance.now();
    const sampler = sampleRss(door.pid);
    await stallTask(door);
    await allFinished([control], 60_000, 'the control run');
    const controlGrowthKiB = sampler.stop().maxKiB - controlBaselineKiB;
    const controlMs = performance.now() - started;
    const c = control.tally;
    if (c.events + c.dropped !== expected || c.idBreaks > 0) {
      throw new Error(`the control reader got ${c.events} events and ${c.dropped} dropped (expected ${expected} in all), ${c.idBreaks} id breaks`);
    }
    const received = c.taskBytes;
    if (c.laggedFrames > 0)
      log(`memory: the control reader fell behind too (${c.laggedFrames} lagged frames, ${c.dropped} dropped): the stream's size is estimated`);
    const s = stalledPart;
    const exact = c.laggedFrames === 0 && s.received + s.dropped === c.events;
    return {
      ...s,
      controlReceived: c.events,
      controlDropped: c.dropped,
      exact,
      streamBytes: Math.round(received + (c.dropped * received) / c.events),
      controlKeptUp: c.laggedFrames === 0,
      controlBaselineKiB,
      controlGrowthKiB,
      controlMs,
      pass: s.heldGrowthKiB < boundMiB * 1024 && s.laggedFrames > 0 && s.accounted && exact && s.idBreaks === 0,
    };
  } finally {
    control.close();
  }
}

export async function measureStreamMemory(door: DoorProcess, config: BenchConfig, log: (line: string) => void): Promise<StreamMemoryMeasurement> {
  if (rssKiB(door.pid) === null) throw new Error('the memory figures need /proc/<pid>/status (Linux)');
  const idle = await measureIdle(door, config, log);
  await sleep(300);
  const stalled = await measureStalled(door, config, log);
  return { idle, stalled };
}
