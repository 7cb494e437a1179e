/**
 * The report's first table: each of issue 28's and issue 39's targets with the door's figure, the anchors' figures from the same
 * run (bare node:http, raw Fastify, the @a2a-js/sdk server), the ratio the target is on, and PASS or FAIL. A figure
 * the run did not measure (a `--versus` pass measures no fan-out) is printed as such, neither passing nor failing.
 */
import { TARGETS } from './config.js';
import type { FanOutMeasurement } from './measure-fan-out.js';
import type { ColdStart, Footprint } from './measure-footprint.js';
import type { GetTaskMeasurement, GetTaskServer } from './measure-get-task.js';
import type { StreamMemoryMeasurement } from './measure-stream-memory.js';
import type { StreamVersusSdk } from './measure-stream-rate.js';
import type { SendRate, SendVersusSdk } from './measure-versus-sdk.js';
import { round } from './stats.js';

export interface TargetInputs {
  getTask: GetTaskMeasurement;
  versusSdk: { send: SendVersusSdk[]; streams: StreamVersusSdk };
  footprint: Footprint;
  coldStart: ColdStart;
  fanOutWide?: FanOutMeasurement;
  /** The stalled WatchSession reader (a `--versus` pass does not measure it). */
  streamMemory?: StreamMemoryMeasurement;
}

export interface TargetRow {
  workload: string;
  door: string;
  anchors: string;
  /** The figure the target is on (a ratio, a rate, MiB, ms). */
  figure: string;
  target: string;
  /** null when the run did not measure it. */
  pass: boolean | null;
  /** The same, as numbers, for the JSON line. */
  value: number | null;
  bound: number;
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const micros = (n: number | null) => (n === null ? '' : `, ${n.toFixed(1)} µs CPU`);
const mib = (kib: number) => (kib / 1024).toFixed(1);
const times = (n: number) => `${n.toFixed(2)}×`;

const getTaskRate = (label: string, s: GetTaskServer) => `${label} ${int(s.result.perSecond)} req/s${micros(s.cpuMicrosPerRequest)}`;
const sendRate = (label: string, r: SendRate) => `${label} ${int(r.medianPerSecond)} tasks/s${micros(r.cpuMicrosPerTask)}`;

function getTaskRows(g: GetTaskMeasurement): TargetRow[] {
  const { many, one } = g;
  return [
    {
      workload: `GetTask c${many.connections}`,
      door: getTaskRate('', many.door).trim(),
      anchors: `${getTaskRate('node:http', many.nodeHttp)}; ${getTaskRate('Fastify', many.fastify)}`,
      figure: `${times(many.doorVsNodeHttp)} node:http (${times(many.doorVsFastify)} Fastify; rounds ${many.roundRatios.map((r) => r.toFixed(2)).join(', ')})`,
      target: `≥ ${TARGETS.getTaskVsNodeHttp}× node:http`,
      pass: many.doorVsNodeHttp >= TARGETS.getTaskVsNodeHttp,
      value: round(many.doorVsNodeHttp, 3),
      bound: TARGETS.getTaskVsNodeHttp,
    },
    {
      workload: 'GetTask c1 p50',
      door: `${one.door.result.p50Ms.toFixed(3)} ms (${int(one.door.result.perSecond)} req/s${micros(one.door.cpuMicrosPerRequest)})`,
      anchors: `node:http ${one.nodeHttp.result.p50Ms.toFixed(3)} ms; Fastify ${one.fastify.result.p50Ms.toFixed(3)} ms`,
      figure: `${times(one.p50VsNodeHttp)} node:http`,
      target: `≤ ${TARGETS.getTaskC1P50VsNodeHttp}× node:http`,
      pass: one.p50VsNodeHttp <= TARGETS.getTaskC1P50VsNodeHttp,
      value: round(one.p50VsNodeHttp, 3),
      bound: TARGETS.getTaskC1P50VsNodeHttp,
    },
  ];
}

function sendRow(s: SendVersusSdk | undefined, connections: number, bound: number): TargetRow {
  const workload = `SendMessage c${connections}, durable`;
  if (s === undefined) return { workload, door: 'not measured', anchors: '', figure: '', target: `≥ ${bound}× SDK`, pass: null, value: null, bound };
  return {
    workload,
    door: sendRate('', s.door).trim(),
    anchors: sendRate('SDK', s.sdk),
    figure: `${times(s.ratio)} SDK`,
    target: `≥ ${bound}× SDK`,
    pass: s.ratio >= bound,
    value: round(s.ratio, 3),
    bound,
  };
}

function streamRow(s: StreamVersusSdk): TargetRow {
  const perEvent = (n: number | null) => (n === null ? '' : `, ${n.toFixed(1)} µs CPU/event`);
  return {
    workload: `stream of ${s.door.rounds[0]?.eventsPerStream.toFixed(0) ?? '?'} events`,
    door: `${int(s.door.medianEventsPerSecond)} events/s${perEvent(s.door.medianCpuMicrosPerEvent)}`,
    anchors: `SDK ${int(s.sdk.medianEventsPerSecond)} events/s${perEvent(s.sdk.medianCpuMicrosPerEvent)}`,
    figure: `${s.ratio.toFixed(1)}× SDK`,
    target: `≥ ${TARGETS.streamVersusSdk}× SDK`,
    pass: s.ratio >= TARGETS.streamVersusSdk,
    value: round(s.ratio, 2),
    bound: TARGETS.streamVersusSdk,
  };
}

function fanOutRow(f: FanOutMeasurement | undefined): TargetRow {
  const bound = TARGETS.fanOutWideDeliveriesPerSecond;
  const target = `≥ ${int(bound)}/s, lossless`;
  if (f === undefined)
    return { workload: 'fan-out, 1,000 watchers', door: 'not measured in this pass', anchors: '', figure: '', target, pass: null, value: null, bound };
  const m = f.median;
  const keptUp = f.runs.reduce((sum, r) => sum + r.keptUp, 0);
  const cpu = m.serverCpuMicrosPerDelivery === null ? '' : `, ${m.serverCpuMicrosPerDelivery.toFixed(2)} µs CPU`;
  return {
    workload: `fan-out, ${int(f.readers)} watchers × ${int(f.expectedEvents)} events`,
    door: `${int(m.eventsPerSecond)} deliveries/s = ${(1e6 / m.eventsPerSecond).toFixed(2)} µs a delivery${cpu}; ${keptUp}/${f.readers * f.runs.length} lossless`,
    anchors: '',
    figure: `${int(m.eventsPerSecond)}/s${f.lossless ? ', lossless' : ', LOSS'}`,
    target,
    pass: m.eventsPerSecond >= bound && f.lossless,
    value: round(m.eventsPerSecond, 0),
    bound,
  };
}

function idleRow(f: Footprint): TargetRow {
  const idle = f.door[0].rssKiB / 1024;
  return {
    workload: 'idle RSS (after one task)',
    door: `${idle.toFixed(1)} MiB`,
    anchors: `node:http ${mib(f.nodeHttpIdleKiB)}; Fastify ${mib(f.rawIdleKiB)}; SDK ${mib(f.sdk[0].rssKiB)} MiB`,
    figure: `${idle.toFixed(1)} MiB`,
    target: `≤ ${TARGETS.idleRssMiB} MiB`,
    pass: idle <= TARGETS.idleRssMiB,
    value: round(idle, 1),
    bound: TARGETS.idleRssMiB,
  };
}

function coldStartRow(c: ColdStart): TargetRow {
  return {
    workload: 'cold start, mur run → card',
    door: `median ${int(c.medianMs)} ms (listening at ${int(c.medianAnnounceMs)} ms)`,
    anchors: '',
    figure: `${int(c.medianMs)} ms`,
    target: `≤ ${TARGETS.coldStartMs} ms`,
    pass: c.medianMs <= TARGETS.coldStartMs,
    value: round(c.medianMs, 1),
    bound: TARGETS.coldStartMs,
  };
}

function stalledRow(m: StreamMemoryMeasurement | undefined): TargetRow {
  const bound = TARGETS.stalledGrowthMiB;
  const target = `held < ${bound} MiB; dropped + received = a kept-up reader's`;
  if (m === undefined)
    return { workload: 'one stalled WatchSession reader', door: 'not measured in this pass', anchors: '', figure: '', target, pass: null, value: null, bound };
  const s = m.stalled;
  const held = s.heldGrowthKiB / 1024;
  const sum = s.received + s.dropped;
  return {
    workload: `one stalled WatchSession reader, ${int(s.chunks)} chunks (${int(s.expectedEvents)} events)`,
    door: `held +${held.toFixed(1)} MiB (peak +${(s.peakGrowthKiB / 1024).toFixed(1)}); resumed: ${int(s.received)} received + ${int(s.dropped)} dropped = ${int(sum)}, ${s.idBreaks} id breaks`,
    anchors: `kept-up reader ${int(s.controlReceived)} received${s.controlDropped > 0 ? `, ${int(s.controlDropped)} dropped (it fell behind)` : ''}`,
    figure: `+${held.toFixed(1)} MiB; ${sum === s.controlReceived && s.controlDropped === 0 ? 'exact' : 'NOT EXACT'}`,
    target,
    pass: s.pass,
    value: round(held, 1),
    bound,
  };
}

export function targetRows(t: TargetInputs): TargetRow[] {
  const send = (c: number) => t.versusSdk.send.find((s) => s.connections === c);
  return [
    ...getTaskRows(t.getTask),
    sendRow(send(16), 16, TARGETS.sendVersusSdkC16),
    sendRow(send(1), 1, TARGETS.sendVersusSdkC1),
    streamRow(t.versusSdk.streams),
    fanOutRow(t.fanOutWide),
    stalledRow(t.streamMemory),
    idleRow(t.footprint),
    coldStartRow(t.coldStart),
  ];
}

const verdict = (pass: boolean | null) => (pass === null ? '—' : pass ? 'PASS' : 'FAIL');

export function targetLines(t: TargetInputs): string[] {
  const rows = targetRows(t);
  const cells = [
    ['workload', 'door', 'anchors, same run', 'figure', 'target', ''],
    ...rows.map((r) => [r.workload, r.door, r.anchors, r.figure, r.target, verdict(r.pass)]),
  ];
  const widths = cells[0].map((_, c) => Math.max(...cells.map((r) => r[c].length)));
  const met = rows.filter((r) => r.pass === true).length;
  const measured = rows.filter((r) => r.pass !== null).length;
  return [
    `Targets (issues 28 and 39; docs/benchmarks.md): ${met} of ${measured} measured met`,
    ...cells.map((r) => `  ${r.map((cell, c) => cell.padEnd(widths[c])).join('   ')}`.trimEnd()),
  ];
}

export function targetsJson(t: TargetInputs) {
  return targetRows(t).map((r) => ({ workload: r.workload, value: r.value, bound: r.bound, target: r.target, pass: r.pass }));
}
