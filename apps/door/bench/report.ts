/** The bench's output: a table for people, then one JSON line (the last line of stdout) for CI and docs. */
import os from 'node:os';
import type { BenchConfig } from './config.js';
import type { ConsolePerf } from './console-perf.js';
import type { LoadResult } from './load.js';
import type { FanOutMeasurement, FanOutRun } from './measure-fan-out.js';
import type { GetTaskAtConnections, GetTaskMeasurement, GetTaskServer } from './measure-get-task.js';
import type { ListTasksMeasurement } from './measure-list-tasks.js';
import { PROCESS_TARGETS, type ProcessLifetime } from './measure-process-lifetime.js';
import { type ShellSandboxMeasurement, shellSandboxJson, shellSandboxLines } from './measure-shell-sandbox.js';
import type { StreamMemoryMeasurement } from './measure-stream-memory.js';
import { targetLines, targetRows, targetsJson } from './report-targets.js';
import { passes, type VersusResults, versusJson, versusLines } from './report-versus.js';
import { round } from './stats.js';

export interface BenchResults extends VersusResults {
  config: BenchConfig;
  versions: { node: string; fastify: string; autocannon: string };
  getTask: GetTaskMeasurement;
  listTasks: ListTasksMeasurement;
  fanOut: FanOutMeasurement;
  fanOutWide: FanOutMeasurement;
  streamMemory: StreamMemoryMeasurement;
  processes: ProcessLifetime;
  shellSandbox: ShellSandboxMeasurement;
  consolePerf: ConsolePerf;
  /** The console's views on a session of 10,000 tasks (perf-views.spec.ts). */
  consoleViews: ConsolePerf;
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => n.toFixed(2);
const micros = (n: number | null) => (n === null ? 'n/a' : `${n.toFixed(1)} µs`);
const pct = (n: number | null) => (n === null ? 'n/a' : `${Math.round(n * 100)}%`);
const verdict = (pass: boolean) => (pass ? 'PASS' : 'FAIL');
const errorsOf = (r: LoadResult) => r.errors + r.timeouts + r.non2xx + r.mismatches;
const mib = (kib: number) => `${(kib / 1024).toFixed(1)} MiB`;
const signedMib = (kib: number) => `${kib >= 0 ? '+' : '−'}${mib(Math.abs(kib))}`;

function table(rows: string[][]): string[] {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  return rows.map((r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('   '));
}

function loadRow(label: string, unit: string, r: LoadResult): string[] {
  return [label, `${int(r.perSecond)} ${unit}`, ms(r.p50Ms), ms(r.p99Ms), pct(r.serverCpu), pct(r.generatorCpu), pct(r.otherCpu), String(errorsOf(r))];
}

/** Above this many cores of outside work during a measurement, its figures are flagged as noisy. */
const BUSY_MACHINE = 0.25;

function fanOutRow(label: string, r: FanOutRun, readers: number): string[] {
  const rss = r.rssPeakGrowthKiB === null ? 'n/a' : signedMib(r.rssPeakGrowthKiB);
  const cpu = r.serverCpuMicrosPerDelivery === null ? 'n/a' : r.serverCpuMicrosPerDelivery.toFixed(2);
  return [
    label,
    `${int(r.eventsPerSecond)} ev/s`,
    (1e6 / r.eventsPerSecond).toFixed(2),
    cpu,
    ms(r.wallMs),
    ms(r.maxLagMs),
    ms(r.p50LagMs),
    `${r.keptUp}/${readers}`,
    String(r.laggedFrames),
    pct(r.serverCpu),
    pct(r.benchCpu),
    pct(r.otherCpu),
    rss,
  ];
}

export function fanOutLines(f: FanOutMeasurement): string[] {
  const runs = f.runs.length;
  const keptUp = f.runs.reduce((sum, r) => sum + r.keptUp, 0);
  return [
    `WatchSession fan-out: ${f.readers} ${f.readerKind} readers, one task of ${int(f.chunks)} text chunks in one burst = ${int(f.expectedEvents)} events per reader ` +
      `(counted by an audit reader; docs imply ${int(f.documentedEvents)}), ${(f.streamBytes / 1e6).toFixed(1)} MB per reader, ${runs} measured runs after one unmeasured:`,
    "events/s: the task's events received by all readers / (first reader gets SUBMITTED → last reader gets COMPLETED); µs a delivery: its inverse; CPU µs: the door's CPU (all threads) a delivery; lag: spread of the readers' COMPLETED arrivals",
    ...table([
      [
        '  run',
        'delivered',
        'µs a delivery',
        'CPU µs',
        'wall ms',
        'max lag ms',
        'p50 lag ms',
        'kept up',
        'lagged',
        'server CPU',
        'bench CPU',
        'other CPU',
        'door RSS peak',
      ],
      ...f.runs.map((r, i) => fanOutRow(`  ${i + 1}${r === f.median ? ' (median)' : ''}`, r, f.readers)),
    ]),
    `Fan-out: ${int(f.median.eventsPerSecond)} events/s delivered in total   (target ≥ ${int(f.target)})   ${verdict(f.pass)}   ` +
      `zero loss: ${keptUp}/${f.readers * runs} readers over ${runs} runs got every event in order with no lagged frame   ${verdict(f.lossless)}`,
  ];
}

/** The memory section: idle streams and the stalled reader (`--stalled` prints it alone). */
export function memoryLines(m: StreamMemoryMeasurement): string[] {
  const { idle, stalled: s } = m;
  return [
    'Door memory (RSS from /proc/<pid>/status):',
    `  idle streams: ${mib(idle.rssBeforeKiB)} with none open → ${mib(idle.rssOpenKiB)} with ${int(idle.streams)} idle WatchSession streams = ${idle.perStreamKiB.toFixed(1)} KiB per stream`,
    `  stalled reader: ${int(s.chunks)} chunks × ${int(s.chunkBytes)} B in bursts of ${int(s.burst)} (${s.controlKeptUp ? '' : '≈'}${mib(s.streamBytes / 1024)} of SSE) past one paused WatchSession reader, in ${int(s.stalledMs)} ms:`,
    `    door RSS ${mib(s.baselineKiB)}; held once quiet (1 s after the task, the reader still paused) ${signedMib(s.heldGrowthKiB)}   (bound < ${s.boundMiB} MiB: queue of 128 + one burst + replay buffer + transcript); peak while the task ran ${signedMib(s.peakGrowthKiB)} (garbage before collection; see the control)`,
    `    resumed: ${s.laggedFrames} lagged frame(s), dropped ${int(s.dropped)} + received ${int(s.received)} = ${int(s.dropped + s.received)} of ${int(s.expectedEvents)} events${s.accounted ? '' : ' (MISMATCH)'}, ${s.idBreaks} id breaks; the kept-up reader received ${int(s.controlReceived)}${s.exact ? ' (exact)' : ' (NOT EXACT)'}`,
    `    control (the same task after, to a reader that reads): peak ${signedMib(s.controlGrowthKiB)} over ${mib(s.controlBaselineKiB)}, ${int(s.controlMs)} ms${s.controlKeptUp ? '' : ' (it fell behind too)'}`,
    `Stalled reader: held ${mib(s.heldGrowthKiB)} < ${s.boundMiB} MiB with the reader paused, lagged frame on resume, every event accounted for   ${verdict(s.pass)}`,
    ...(s.streamBytes < s.boundMiB * 1024 * 1024
      ? [
          `  NOTE: the task's stream is smaller than the bound, so the bound cannot tell a door that keeps everything from one that does not: raise BENCH_STALL_CHUNKS`,
        ]
      : []),
  ];
}

function consoleLines(c: ConsolePerf, title = 'Console at 2,000 frames/s'): string[] {
  if (c.measuredAt === null) return [`${title}: no ${c.file} — run npm test (e2e) to measure`];
  if (c.problem !== null) return [`${title}: ${c.file} (written ${c.measuredAt}) is unreadable: ${c.problem}`];
  const ageHours = (Date.now() - Date.parse(c.measuredAt)) / 3_600_000;
  const age = ageHours < 1 ? `${Math.round(ageHours * 60)} min ago` : ageHours < 48 ? `${ageHours.toFixed(1)} h ago` : `${Math.round(ageHours / 24)} days ago`;
  return [
    `${title} (Playwright, ${c.file}, measured ${c.measuredAt}, ${age}; not run by the bench):`,
    ...(c.figures.length === 0 ? ['  (no figures in the file)'] : table(c.figures.map(([key, value]) => [`  ${key}`, value]))),
  ];
}

/** Issue 37's targets for the task page's trace on a 10,000-span record: usable within 500 ms, zoom frames within 16 ms at p95. */
const TRACE_PAGE_TARGETS = { usableMs: 500, zoomP95Ms: 16 } as const;

/** The trace page's figures (perf-views.json's `tracePage`) against their targets, when the file has them. */
function tracePageLines(c: ConsolePerf): string[] {
  const raw = c.raw as { tracePage?: { interactiveMs?: number; zoomStepP95Ms?: number; zoomFrameP95Ms?: number } } | null;
  const t = raw?.tracePage;
  if (!t || typeof t.interactiveMs !== 'number' || typeof t.zoomStepP95Ms !== 'number') return [];
  const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');
  return [
    `  trace page usable (interactive) ${t.interactiveMs} ms, target ≤ ${TRACE_PAGE_TARGETS.usableMs} ms: ${verdict(t.interactiveMs <= TRACE_PAGE_TARGETS.usableMs)}`,
    `  trace zoom step p95 ${t.zoomStepP95Ms} ms (frame interval p95 ${t.zoomFrameP95Ms ?? '?'} ms), target ≤ ${TRACE_PAGE_TARGETS.zoomP95Ms} ms: ${verdict(t.zoomStepP95Ms <= TRACE_PAGE_TARGETS.zoomP95Ms)}`,
  ];
}

export function renderTable(results: BenchResults): string {
  const { config, getTask, listTasks } = results;
  const lines = [
    '',
    `Murmur door bench — node ${results.versions.node}, fastify ${results.versions.fastify}, autocannon ${results.versions.autocannon}, ${os.cpus().length} CPUs`,
    `load: ${config.connections} keep-alive connections (and 1 for GetTask's latency), ${config.seconds}s measured per line after ${config.warmupSeconds}s warm-up; GetTask rotates door, raw Fastify and node:http in ${config.rounds} rounds`,
    'CPU columns: cores busy over the run (100% = one core) for the server, the bench (load generator), and everything else',
    '',
    ...targetLines(results),
    '',
    ...table([
      ['measurement', 'rate', 'p50 ms', 'p99 ms', 'server CPU', 'bench CPU', 'other CPU', 'errors'],
      ...[getTask.many, getTask.one].flatMap((g) => [
        loadRow(`GetTask c${g.connections} — node:http endpoint`, 'req/s', g.nodeHttp.result),
        loadRow(`GetTask c${g.connections} — raw Fastify endpoint`, 'req/s', g.fastify.result),
        loadRow(`GetTask c${g.connections} — door`, 'req/s', g.door.result),
      ]),
    ]),
    '',
    ...[getTask.many, getTask.one].map(
      (g) =>
        `GetTask c${g.connections}: door / node:http = ${g.doorVsNodeHttp.toFixed(2)}× (rounds ${g.roundRatios.map((r) => r.toFixed(2)).join(', ')}), door / raw Fastify = ${g.doorVsFastify.toFixed(2)}×, p50 door / node:http = ${g.p50VsNodeHttp.toFixed(2)}×; ` +
        `CPU a request: door ${micros(g.door.cpuMicrosPerRequest)}, Fastify ${micros(g.fastify.cpuMicrosPerRequest)}, node:http ${micros(g.nodeHttp.cpuMicrosPerRequest)}`,
    ),
    '',
    ...versusLines(results),
    '',
    `ListTasks, pageSize ${listTasks.pageSize}, over ${int(listTasks.totalSize)} tasks (median of ${listTasks.firstSamplesMs.length} requests each):`,
    ...table([
      ['  page 1', `${ms(listTasks.firstMs)} ms`],
      [`  page ${int(listTasks.deepPage)}`, `${ms(listTasks.deepMs)} ms`],
    ]),
    `ListTasks: deep / first = ${listTasks.ratio.toFixed(2)}x   (target ≤ ${listTasks.target}x)   ${verdict(listTasks.pass)}`,
    `  (seeding ${int(listTasks.seeded)} rows took ${int(listTasks.insertMs)} ms; the door reopened the session in ${int(listTasks.resumeMs)} ms)`,
    '',
    ...fanOutLines(results.fanOut),
    '',
    ...fanOutLines(results.fanOutWide),
    '',
    ...memoryLines(results.streamMemory),
    '',
    ...processLines(results.processes),
    '',
    ...shellSandboxLines(results.shellSandbox),
    '',
    ...consoleLines(results.consolePerf),
    '',
    ...consoleLines(results.consoleViews, 'Console views on a session of 10,000 tasks (render ms from navigation start; tracePage: one task of 10,000 spans)'),
    ...tracePageLines(results.consoleViews),
    '',
  ];
  const loads = [getTask.many, getTask.one]
    .flatMap((g) => [g.door.result, g.fastify.result, g.nodeHttp.result])
    .concat(results.versusSdk.send.flatMap((s) => [s.door.result, s.sdk.result]));
  if (loads.some((r) => errorsOf(r) > 0))
    lines.push('WARNING: some requests failed or answered something else; see "errors" (the rates count only correct answers).');
  if (loads.some((r) => (r.otherCpu ?? 0) > BUSY_MACHINE) || (results.fanOut.median.otherCpu ?? 0) > BUSY_MACHINE)
    lines.push('WARNING: other work used the CPUs during the run (see "other CPU"): the rates are noisy; rerun on a quiet machine.');
  if (lines.at(-1) !== '') lines.push('');
  return lines.join('\n');
}

function loadJson(r: LoadResult) {
  return {
    perSecond: round(r.perSecond, 1),
    p50Ms: round(r.p50Ms, 3),
    p99Ms: round(r.p99Ms, 3),
    meanMs: round(r.meanMs, 3),
    responses: r.responses,
    errors: r.errors,
    timeouts: r.timeouts,
    non2xx: r.non2xx,
    mismatches: r.mismatches,
    seconds: round(r.seconds, 2),
    serverCpu: r.serverCpu === null ? null : round(r.serverCpu, 2),
    benchCpu: round(r.generatorCpu, 2),
    otherCpu: r.otherCpu === null ? null : round(r.otherCpu, 2),
    runs: r.runs,
  };
}

function fanOutRunJson(r: FanOutRun) {
  return {
    eventsPerSecond: round(r.eventsPerSecond, 0),
    microsPerDelivery: round(1e6 / r.eventsPerSecond, 3),
    serverCpuMicrosPerDelivery: r.serverCpuMicrosPerDelivery === null ? null : round(r.serverCpuMicrosPerDelivery, 3),
    delivered: r.delivered,
    wallMs: round(r.wallMs, 2),
    maxLagMs: round(r.maxLagMs, 2),
    p50LagMs: round(r.p50LagMs, 2),
    fromRequestMs: round(r.fromRequestMs, 2),
    keptUp: r.keptUp,
    laggedFrames: r.laggedFrames,
    dropped: r.dropped,
    miscounted: r.miscounted,
    idBreaks: r.idBreaks,
    serverCpu: r.serverCpu === null ? null : round(r.serverCpu, 2),
    benchCpu: round(r.benchCpu, 2),
    otherCpu: r.otherCpu === null ? null : round(r.otherCpu, 2),
    rssBeforeKiB: r.rssBeforeKiB,
    rssPeakGrowthKiB: r.rssPeakGrowthKiB,
  };
}

export function fanOutJson(f: FanOutMeasurement) {
  return {
    readers: f.readers,
    chunks: f.chunks,
    reader: f.readerKind,
    expectedEvents: f.expectedEvents,
    documentedEvents: f.documentedEvents,
    streamBytesPerReader: f.streamBytes,
    eventsPerSecond: round(f.median.eventsPerSecond, 0),
    maxLagMs: round(f.median.maxLagMs, 2),
    median: fanOutRunJson(f.median),
    runs: f.runs.map(fanOutRunJson),
    target: f.target,
    pass: f.pass,
    lossless: f.lossless,
  };
}

function getTaskServerJson(s: GetTaskServer) {
  return { ...loadJson(s.result), cpuMicrosPerRequest: s.cpuMicrosPerRequest === null ? null : round(s.cpuMicrosPerRequest, 1) };
}

function getTaskJson(g: GetTaskAtConnections) {
  return {
    connections: g.connections,
    door: getTaskServerJson(g.door),
    rawFastify: getTaskServerJson(g.fastify),
    nodeHttp: getTaskServerJson(g.nodeHttp),
    doorVsNodeHttp: round(g.doorVsNodeHttp, 3),
    doorVsFastify: round(g.doorVsFastify, 3),
    roundRatios: g.roundRatios.map((r) => round(r, 3)),
    p50VsNodeHttp: round(g.p50VsNodeHttp, 3),
  };
}

function streamMemoryJson(m: StreamMemoryMeasurement) {
  const { idle, stalled: s } = m;
  return {
    idle: { streams: idle.streams, rssBeforeKiB: idle.rssBeforeKiB, rssOpenKiB: idle.rssOpenKiB, perStreamKiB: round(idle.perStreamKiB, 2) },
    stalled: {
      chunks: s.chunks,
      chunkBytes: s.chunkBytes,
      burst: s.burst,
      expectedEvents: s.expectedEvents,
      streamBytes: s.streamBytes,
      streamBytesExact: s.controlKeptUp,
      baselineKiB: s.baselineKiB,
      peakGrowthKiB: s.peakGrowthKiB,
      heldGrowthKiB: s.heldGrowthKiB,
      stalledMs: Math.round(s.stalledMs),
      received: s.received,
      laggedFrames: s.laggedFrames,
      dropped: s.dropped,
      idBreaks: s.idBreaks,
      accounted: s.accounted,
      exact: s.exact,
      control: {
        baselineKiB: s.controlBaselineKiB,
        peakGrowthKiB: s.controlGrowthKiB,
        ms: Math.round(s.controlMs),
        received: s.controlReceived,
        dropped: s.controlDropped,
      },
      boundMiB: s.boundMiB,
      pass: s.pass,
    },
  };
}

function processLines(p: ProcessLifetime): string[] {
  return [
    `Process lifetime: ${p.killTrials} kill -9 trials of a door running a command with a child: ${p.survivors} process group(s) survived (target ${PROCESS_TARGETS.survivors}); the reaper killed them in p50 ${ms(p.killMs.p50)} ms, max ${ms(p.killMs.max)} ms`,
    `  a foreground call whose child holds the output returns after the shell exits in p50 ${ms(p.holderReturnMs.p50)} ms, p99 ${ms(p.holderReturnMs.p99)} ms over ${p.holderCalls} calls (target < ${PROCESS_TARGETS.holderReturnMs} ms)   ${verdict(p.pass)}`,
  ];
}

export function renderJson(results: BenchResults): string {
  const { config, getTask, listTasks, fanOut, streamMemory, consolePerf, consoleViews } = results;
  const ok = passes(results);
  return JSON.stringify({
    bench: 'murmur-door',
    schema: 1,
    at: new Date().toISOString(),
    environment: { ...results.versions, cpus: os.cpus().length, platform: process.platform, arch: process.arch },
    config: { quick: config.quick, seconds: config.seconds, warmupSeconds: config.warmupSeconds, rounds: config.rounds, connections: config.connections },
    targets: targetsJson(results),
    getTask: { c16: getTaskJson(getTask.many), c1: getTaskJson(getTask.one), responseBytes: getTask.responseBytes },
    ...versusJson(results),
    listTasks: {
      totalSize: listTasks.totalSize,
      pageSize: listTasks.pageSize,
      deepPage: listTasks.deepPage,
      firstPageMs: round(listTasks.firstMs, 3),
      deepPageMs: round(listTasks.deepMs, 3),
      ratio: round(listTasks.ratio, 3),
      target: listTasks.target,
      pass: listTasks.pass,
      samples: listTasks.firstSamplesMs.length,
      insertMs: Math.round(listTasks.insertMs),
      resumeMs: Math.round(listTasks.resumeMs),
    },
    fanOut: fanOutJson(fanOut),
    fanOutWide: fanOutJson(results.fanOutWide),
    streamMemory: streamMemoryJson(streamMemory),
    processes: results.processes,
    shellSandbox: shellSandboxJson(results.shellSandbox),
    consolePerf:
      consolePerf.measuredAt === null
        ? { file: consolePerf.file, measuredAt: null }
        : { file: consolePerf.file, measuredAt: consolePerf.measuredAt, figures: consolePerf.raw, problem: consolePerf.problem },
    consoleViews:
      consoleViews.measuredAt === null
        ? { file: consoleViews.file, measuredAt: null }
        : { file: consoleViews.file, measuredAt: consoleViews.measuredAt, figures: consoleViews.raw, problem: consoleViews.problem },
    pass:
      targetRows(results).every((r) => r.pass !== false) &&
      listTasks.pass &&
      fanOut.pass &&
      fanOut.lossless &&
      streamMemory.stalled.pass &&
      results.processes.pass &&
      results.shellSandbox.pass !== false &&
      ok.at100k !== false,
  });
}
