/**
 * The planes (docs/planes.md, docs/benchmarks.md "Planes"): a 1 GiB download from the operator plane beside a raw
 * `fs.createReadStream` piped to a socket, in the same run and from the same (sparse) file, with the door's RSS
 * growth while it streams; and a peer handle's mint (share-file, through a task of the script driver) and redeem (a
 * GET on the peer plane) latency. Reported, not asserted.
 */
import { rmSync, truncateSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { METHOD } from '@murmur/protocol';
import { SHARED_FILE, startPlanesFormation, startRawFileServer } from './planes-formation.js';
import { rssKiB, settledRssKiB } from './proc-memory.js';
import { rpc, sendParams } from './rpc-client.js';
import { cpuSecondsOf } from './proc-cpu.js';
import { median, quantile, round, sortedCopy } from './stats.js';

const PLANES_TARGETS = { downloadVsRaw: 0.8, rssGrowthMiB: 32 } as const;

export interface PlanesMeasurement {
  download: {
    bytes: number;
    /** Rounds of one raw and one door download each, their order alternating. */
    rounds: number;
    /** Medians over the rounds. */
    doorMiBps: number;
    rawMiBps: number;
    /** The median of the rounds' door / raw ratios. */
    ratio: number;
    /** Every round's door / raw, in order. */
    ratios: number[];
    /** CPU seconds (user + system, all threads, /proc) each server spent per GiB sent, medians over the rounds. */
    doorCpuSecondsPerGiB: number | null;
    rawCpuSecondsPerGiB: number | null;
    rssBeforeKiB: number;
    /** The largest RSS sampled over all the door's downloads. */
    rssPeakKiB: number;
    rssGrowthMiB: number;
  };
  handles: { samples: number; mintMs: { p50: number; p99: number }; redeemMs: { p50: number; p99: number } };
}

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

/**
 * Reads everything a socket sends until it ends, throwing it away. Both runs read through a bare socket (the door's
 * by a hand-written `GET` with `connection: close`, its bytes counting the answer's headers), so neither pays for an
 * HTTP parser on the reading side: the figures compare the servers.
 */
function drainSocket(port: number, send?: string): Promise<{ bytes: number; seconds: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    let bytes = 0;
    const socket = connect(port, '127.0.0.1', () => {
      if (send !== undefined) socket.write(send);
    });
    socket.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    socket.on('end', () => resolve({ bytes, seconds: (performance.now() - started) / 1000 }));
    socket.on('error', reject);
  });
}

interface Run {
  bytes: number;
  seconds: number;
  /** The server's CPU seconds over the download; null without /proc. */
  cpuSeconds: number | null;
}

/** One download, with the CPU time the serving process spent on it. */
async function timed(pid: number, download: () => Promise<{ bytes: number; seconds: number }>): Promise<Run> {
  const cpuBefore = cpuSecondsOf(pid);
  const run = await download();
  const cpuAfter = cpuSecondsOf(pid);
  return { ...run, cpuSeconds: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore };
}

/** Download rounds (BENCH_PLANES_ROUNDS), each one raw and one door download of the GiB. */
function downloadRounds(): number {
  const value = Number(process.env.BENCH_PLANES_ROUNDS ?? 5);
  if (!Number.isInteger(value) || value < 1) throw new Error(`BENCH_PLANES_ROUNDS must be a positive integer, not ${process.env.BENCH_PLANES_ROUNDS}`);
  return value;
}

const p = (values: number[]) => {
  const sorted = sortedCopy(values);
  return { p50: round(quantile(sorted, 0.5)), p99: round(quantile(sorted, 0.99)) };
};

export async function measurePlanes(root: string, options: { handleSamples: number }, log: (line: string) => void): Promise<PlanesMeasurement> {
  const dir = path.join(root, 'planes');
  // BENCH_CPU_PROF_DIR: the supervisor and both members write CPU profiles there when the formation stops.
  const profileDir = process.env.BENCH_CPU_PROF_DIR?.trim();
  const formation = await startPlanesFormation(dir, path.join(root, 'planes-home'), profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []);
  const file = path.join(formation.filesRoot, 'one-gib.bin');
  const rounds = downloadRounds();
  try {
    // Sparse: no disk is written, and both readers get the same page-cache zeros, so the figures compare the paths.
    writeFileSync(file, '');
    truncateSync(file, GiB);
    log(`planes: a 1 GiB download, ${rounds} rounds of raw socket and operator plane, alternating`);
    const raw = await startRawFileServer(file);
    const port = Number(new URL(formation.url).port);
    const fromDoor = () => drainSocket(port, 'GET /resources/files/one-gib.bin HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n');
    const runs: { raw: Run[]; door: Run[] } = { raw: [], door: [] };
    let before = 0;
    let peak = 0;
    try {
      await drainSocket(raw.port); // warm the page cache
      before = await settledRssKiB(formation.pid);
      peak = before;
      const sampler = setInterval(() => {
        peak = Math.max(peak, rssKiB(formation.pid) ?? peak);
      }, 25);
      try {
        for (let i = 0; i < rounds; i++) {
          // Alternating which goes first, so neither always follows the other's page-cache and scheduler state.
          const order = i % 2 === 0 ? (['raw', 'door'] as const) : (['door', 'raw'] as const);
          for (const which of order)
            runs[which].push(await timed(which === 'raw' ? raw.pid : formation.pid, which === 'raw' ? () => drainSocket(raw.port) : fromDoor));
        }
      } finally {
        clearInterval(sampler);
      }
    } finally {
      await raw.stop();
    }
    for (const run of [...runs.door, ...runs.raw]) {
      if (run.bytes < GiB || run.bytes > GiB + 4096) throw new Error(`a download read ${run.bytes} bytes, not ${GiB}`);
    }
    rmSync(file);

    log(`planes: ${options.handleSamples} peer handles minted and redeemed`);
    const mints: number[] = [];
    const redeems: number[] = [];
    for (let i = 0; i < options.handleSamples; i++) {
      const minted = await rpc(formation.url, METHOD.SendMessage, sendParams(`share ${SHARED_FILE}`, `msg-share-${i}`));
      const url = /http:\/\/[^"\\\s]+\/resources\/peer\/phk_[A-Za-z0-9_-]{43}/.exec(JSON.stringify(minted.result))?.[0];
      if (url === undefined) throw new Error(`share-file minted no handle: ${JSON.stringify(minted.result).slice(0, 300)}`);
      mints.push(minted.elapsedMs);
      const started = performance.now();
      const redeemed = await fetch(url, { headers: { 'x-murmur-audience': 'reader' } });
      await redeemed.arrayBuffer();
      if (redeemed.status !== 200) throw new Error(`the redeem answered HTTP ${redeemed.status}`);
      redeems.push(performance.now() - started);
    }
    const rate = (run: Run) => GiB / MiB / run.seconds;
    const ratios = runs.door.map((door, i) => rate(door) / rate(runs.raw[i]));
    const cpuPerGiB = (list: Run[]) => (list.every((r) => r.cpuSeconds !== null) ? round(median(list.map((r) => r.cpuSeconds as number)), 3) : null);
    return {
      download: {
        bytes: GiB,
        rounds,
        doorMiBps: round(median(runs.door.map(rate)), 1),
        rawMiBps: round(median(runs.raw.map(rate)), 1),
        ratio: round(median(ratios), 3),
        ratios: ratios.map((r) => round(r, 3)),
        doorCpuSecondsPerGiB: cpuPerGiB(runs.door),
        rawCpuSecondsPerGiB: cpuPerGiB(runs.raw),
        rssBeforeKiB: before,
        rssPeakKiB: peak,
        rssGrowthMiB: round((peak - before) / 1024, 1),
      },
      handles: { samples: options.handleSamples, mintMs: p(mints), redeemMs: p(redeems) },
    };
  } finally {
    rmSync(file, { force: true });
    await formation.stop();
  }
}

export function renderPlanes(m: PlanesMeasurement): string {
  const { download: d, handles: h } = m;
  const mark = (ok: boolean) => (ok ? 'met' : 'MISSED');
  return [
    '',
    'Planes (reported, not asserted)',
    `1 GiB download, operator plane   ${d.doorMiBps} MiB/s vs raw createReadStream→socket ${d.rawMiBps} MiB/s (medians of ${d.rounds} alternating rounds); median door/raw ${Math.round(d.ratio * 100)} % (target ≥ ${PLANES_TARGETS.downloadVsRaw * 100} %: ${mark(d.ratio >= PLANES_TARGETS.downloadVsRaw)}); rounds ${d.ratios.map((r) => `${Math.round(r * 100)}%`).join(' ')}`,
    `CPU per GiB sent (/proc)         door ${d.doorCpuSecondsPerGiB ?? '—'} s vs raw ${d.rawCpuSecondsPerGiB ?? '—'} s`,
    `door RSS over its downloads      ${Math.round(d.rssBeforeKiB / 1024)} → ${Math.round(d.rssPeakKiB / 1024)} MiB, growth ${d.rssGrowthMiB} MiB (target < ${PLANES_TARGETS.rssGrowthMiB} MiB: ${mark(d.rssGrowthMiB < PLANES_TARGETS.rssGrowthMiB)})`,
    `peer handle mint p50/p99 ms      ${h.mintMs.p50} / ${h.mintMs.p99}  (share-file in a SendMessage task, script driver; ${h.samples} samples)`,
    `peer handle redeem p50/p99 ms    ${h.redeemMs.p50} / ${h.redeemMs.p99}  (GET /resources/peer/<handle>, 22-byte file)`,
    '',
  ].join('\n');
}
