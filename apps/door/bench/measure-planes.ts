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
import { quantile, round, sortedCopy } from './stats.js';

export const PLANES_TARGETS = { downloadVsRaw: 0.8, rssGrowthMiB: 32 } as const;

export interface PlanesMeasurement {
  download: {
    bytes: number;
    doorMiBps: number;
    rawMiBps: number;
    /** door / raw. */
    ratio: number;
    rssBeforeKiB: number;
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

const p = (values: number[]) => {
  const sorted = sortedCopy(values);
  return { p50: round(quantile(sorted, 0.5)), p99: round(quantile(sorted, 0.99)) };
};

export async function measurePlanes(root: string, options: { handleSamples: number }, log: (line: string) => void): Promise<PlanesMeasurement> {
  const dir = path.join(root, 'planes');
  const formation = await startPlanesFormation(dir, path.join(root, 'planes-home'));
  const file = path.join(formation.filesRoot, 'one-gib.bin');
  try {
    // Sparse: no disk is written, and both readers get the same page-cache zeros, so the figures compare the paths.
    writeFileSync(file, '');
    truncateSync(file, GiB);
    log('planes: a 1 GiB download, raw socket then the operator plane');
    const raw = await startRawFileServer(file);
    let rawRun: { bytes: number; seconds: number };
    try {
      await drainSocket(raw.port); // warm the page cache
      rawRun = await drainSocket(raw.port);
    } finally {
      await raw.stop();
    }
    const before = await settledRssKiB(formation.pid);
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssKiB(formation.pid) ?? peak);
    }, 25);
    let doorRun: { bytes: number; seconds: number };
    try {
      const port = Number(new URL(formation.url).port);
      doorRun = await drainSocket(port, 'GET /resources/files/one-gib.bin HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n');
    } finally {
      clearInterval(sampler);
    }
    if (doorRun.bytes < GiB || doorRun.bytes > GiB + 4096 || rawRun.bytes !== GiB) throw new Error(`read ${doorRun.bytes} bytes from the door and ${rawRun.bytes} raw, not ${GiB}`);
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
    const doorMiBps = doorRun.bytes / MiB / doorRun.seconds;
    const rawMiBps = rawRun.bytes / MiB / rawRun.seconds;
    return {
      download: {
        bytes: GiB,
        doorMiBps: round(doorMiBps, 1),
        rawMiBps: round(rawMiBps, 1),
        ratio: round(doorMiBps / rawMiBps, 3),
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
    `1 GiB download, operator plane   ${d.doorMiBps} MiB/s vs raw createReadStream→socket ${d.rawMiBps} MiB/s = ${Math.round(d.ratio * 100)} % (target ≥ ${PLANES_TARGETS.downloadVsRaw * 100} %: ${mark(d.ratio >= PLANES_TARGETS.downloadVsRaw)})`,
    `door RSS during it               ${Math.round(d.rssBeforeKiB / 1024)} → ${Math.round(d.rssPeakKiB / 1024)} MiB, growth ${d.rssGrowthMiB} MiB (target < ${PLANES_TARGETS.rssGrowthMiB} MiB: ${mark(d.rssGrowthMiB < PLANES_TARGETS.rssGrowthMiB)})`,
    `peer handle mint p50/p99 ms      ${h.mintMs.p50} / ${h.mintMs.p99}  (share-file in a SendMessage task, script driver; ${h.samples} samples)`,
    `peer handle redeem p50/p99 ms    ${h.redeemMs.p50} / ${h.redeemMs.p99}  (GET /resources/peer/<handle>, 22-byte file)`,
    '',
  ].join('\n');
}
