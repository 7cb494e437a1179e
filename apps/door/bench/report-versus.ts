/** The report's section for the door beside the official SDK's server: SendMessage, streams, RSS, cold start. */
import { TARGETS } from './config.js';
import type { LoadResult } from './load.js';
import { type ColdStart, FOOTPRINT_REST_MS, FOOTPRINT_SETTLE_MS, type Footprint, type FootprintPoint } from './measure-footprint.js';
import type { StreamVersusSdk } from './measure-stream-rate.js';
import type { SendRate, SendVersusSdk } from './measure-versus-sdk.js';
import { round } from './stats.js';

export interface VersusResults {
  versusSdk: { send: SendVersusSdk[]; streams: StreamVersusSdk };
  footprint: Footprint;
  coldStart: ColdStart;
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const micros = (n: number | null) => (n === null ? 'n/a' : `${int(n)} µs`);
const mib = (kib: number) => (kib / 1024).toFixed(1);
const verdict = (pass: boolean) => (pass ? 'PASS' : 'FAIL');

function table(rows: string[][]): string[] {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  return rows.map((r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('   '));
}

const pct = (n: number | null) => (n === null ? 'n/a' : `${Math.round(n * 100)}%`);
const sendRow = (label: string, r: SendRate) => [
  label,
  `${int(r.medianPerSecond)} tasks/s`,
  r.result.p50Ms.toFixed(2),
  r.result.p99Ms.toFixed(2),
  micros(r.cpuMicrosPerTask),
  pct(r.result.serverCpu),
  pct(r.result.otherCpu),
];
const at = (points: FootprintPoint[], tasks: number) => points.find((p) => p.tasks === tasks);

export function passes(v: VersusResults): { send: boolean; stream: boolean; idle: boolean; at100k: boolean | null } {
  const c16 = v.versusSdk.send.find((s) => s.connections === 16);
  const last = at(v.footprint.door, 100_000);
  return {
    send: c16 !== undefined && c16.ratio >= TARGETS.sendVersusSdkC16,
    stream: v.versusSdk.streams.ratio >= TARGETS.streamVersusSdk,
    idle: v.footprint.door[0].rssKiB / 1024 <= TARGETS.idleRssMiB,
    at100k: last === undefined ? null : last.rssKiB / 1024 <= TARGETS.rss100kMiB,
  };
}

export function versusLines(v: VersusResults): string[] {
  const { send, streams } = v.versusSdk;
  const ok = passes(v);
  const marks = v.footprint.door.map((p) => p.tasks);
  const c16 = send.find((s) => s.connections === 16);
  return [
    'The door (durable: SQLite, WAL) beside the official @a2a-js/sdk 1.3.0 server (in memory), alternating in rounds; medians over rounds:',
    ...table([
      ['  blocking SendMessage', 'tasks/s', 'p50 ms', 'p99 ms', 'CPU/task', 'server CPU', 'other CPU'],
      ...send.flatMap((s) => [
        sendRow(`  c${s.connections} door`, s.door),
        sendRow(`  c${s.connections} SDK server`, s.sdk),
        [`  c${s.connections} door / SDK`, `${s.ratio.toFixed(2)}×`, '', '', '', '', ''],
      ]),
    ]),
    c16
      ? `SendMessage c16: door / SDK = ${c16.ratio.toFixed(2)}×   (target ≥ ${TARGETS.sendVersusSdkC16}×, durable)   ${verdict(ok.send)}`
      : 'SendMessage c16: not measured (BENCH_CONNECTIONS ≠ 16)',
    `Streams (one at a time, ${streams.door.rounds[0]?.eventsPerStream.toFixed(0)} events each from the door, ${streams.sdk.rounds[0]?.eventsPerStream.toFixed(0)} from the SDK): ` +
      `door ${int(streams.door.medianEventsPerSecond)} events/s (${micros(streams.door.medianCpuMicrosPerEvent)} CPU/event), SDK ${int(streams.sdk.medianEventsPerSecond)} events/s (${micros(streams.sdk.medianCpuMicrosPerEvent)} CPU/event)`,
    `Streams: door / SDK = ${streams.ratio.toFixed(1)}×   (target ≥ ${TARGETS.streamVersusSdk}×)   ${verdict(ok.stream)}   rounds: ${streams.door.rounds.map((r, i) => (r.eventsPerSecond / streams.sdk.rounds[i].eventsPerSecond).toFixed(1)).join(', ')}`,
    '',
    `RSS, MiB (each server fresh, read once quiet for ${FOOTPRINT_SETTLE_MS / 1000} s; idle = after its first task; raw Fastify idle ${mib(v.footprint.rawIdleKiB)} MiB, node:http ${mib(v.footprint.nodeHttpIdleKiB)} MiB):`,
    ...table([
      ['  server', 'idle', ...marks.slice(1).map((m) => `${int(m)} tasks`), 'per task'],
      ...[
        ['  door', v.footprint.door],
        ['  SDK server', v.footprint.sdk],
      ].map(([label, points]) => {
        const p = points as FootprintPoint[];
        const last = p[p.length - 1];
        return [
          label as string,
          mib(p[0].rssKiB),
          ...p.slice(1).map((x) => mib(x.rssKiB)),
          p.length > 1 ? `${((last.rssKiB - p[0].rssKiB) / (last.tasks - p[0].tasks)).toFixed(2)} KiB` : 'n/a',
        ];
      }),
    ]),
    `RSS while the tasks were sent (peak, MiB): door ${v.footprint.door
      .slice(1)
      .map((x) => mib(x.peakKiB ?? x.rssKiB))
      .join(' / ')}, SDK server ${v.footprint.sdk
      .slice(1)
      .map((x) => mib(x.peakKiB ?? x.rssKiB))
      .join(' / ')}`,
    ...(() => {
      const last = v.footprint.door[v.footprint.door.length - 1]!;
      return last.restKiB === undefined
        ? []
        : [
            `RSS of the door at rest ${FOOTPRINT_REST_MS / 1000} s after ${int(last.tasks)} tasks: ${mib(last.restKiB)} MiB (it collects once quiet, and V8 gives the pages back seconds later: src/memory/quiet-collector.ts)`,
          ];
    })(),
    `RSS: door idle ${mib(v.footprint.door[0].rssKiB)} MiB (target ≤ ${TARGETS.idleRssMiB})   ${verdict(ok.idle)}` +
      (ok.at100k === null
        ? ''
        : `;  after 100,000 tasks ${mib(at(v.footprint.door, 100_000)!.rssKiB)} MiB (target ≤ ${TARGETS.rss100kMiB})   ${verdict(ok.at100k)}`),
    `Cold start, mur run → card served: median ${int(v.coldStart.medianMs)} ms of ${v.coldStart.samples.length} (announced listening at ${int(v.coldStart.medianAnnounceMs)} ms); samples ${v.coldStart.samples.map((s) => int(s)).join(', ')} ms`,
  ];
}

const loadBrief = (r: LoadResult) => ({
  perSecond: round(r.perSecond, 1),
  p50Ms: round(r.p50Ms, 3),
  p99Ms: round(r.p99Ms, 3),
  serverCpu: r.serverCpu === null ? null : round(r.serverCpu, 2),
  otherCpu: r.otherCpu === null ? null : round(r.otherCpu, 2),
  errors: r.errors + r.non2xx + r.mismatches + r.timeouts,
});
const rateJson = (r: SendRate) => ({
  medianPerSecond: round(r.medianPerSecond, 1),
  cpuMicrosPerTask: r.cpuMicrosPerTask === null ? null : round(r.cpuMicrosPerTask, 0),
  load: loadBrief(r.result),
});

export function versusJson(v: VersusResults) {
  const ok = passes(v);
  const { streams } = v.versusSdk;
  return {
    sendMessage: v.versusSdk.send.map((s) => ({ connections: s.connections, door: rateJson(s.door), sdk: rateJson(s.sdk), ratio: round(s.ratio, 3) })),
    sendMessageTarget: TARGETS.sendVersusSdkC16,
    sendMessagePass: ok.send,
    streams: {
      door: {
        eventsPerSecond: round(streams.door.medianEventsPerSecond, 0),
        cpuMicrosPerEvent: streams.door.medianCpuMicrosPerEvent === null ? null : round(streams.door.medianCpuMicrosPerEvent, 2),
        rounds: streams.door.rounds.map((r) => round(r.eventsPerSecond, 0)),
      },
      sdk: {
        eventsPerSecond: round(streams.sdk.medianEventsPerSecond, 0),
        cpuMicrosPerEvent: streams.sdk.medianCpuMicrosPerEvent === null ? null : round(streams.sdk.medianCpuMicrosPerEvent, 2),
        rounds: streams.sdk.rounds.map((r) => round(r.eventsPerSecond, 0)),
      },
      ratio: round(streams.ratio, 2),
      target: TARGETS.streamVersusSdk,
      pass: ok.stream,
    },
    rss: {
      door: v.footprint.door,
      sdk: v.footprint.sdk,
      rawIdleKiB: v.footprint.rawIdleKiB,
      nodeHttpIdleKiB: v.footprint.nodeHttpIdleKiB,
      idleTargetMiB: TARGETS.idleRssMiB,
      idlePass: ok.idle,
      at100kTargetMiB: TARGETS.rss100kMiB,
      at100kPass: ok.at100k,
    },
    coldStart: {
      medianMs: round(v.coldStart.medianMs, 1),
      medianAnnounceMs: round(v.coldStart.medianAnnounceMs, 1),
      samplesMs: v.coldStart.samples.map((s) => round(s, 1)),
    },
  };
}
