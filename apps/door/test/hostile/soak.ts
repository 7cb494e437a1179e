/** The stream soak (issue 16): many WatchSession streams held open while tasks run; heartbeats, RSS, fds, GetTask p99. */
import { readdirSync } from 'node:fs';
import net from 'node:net';
import { makeCapsule, manifestYaml, runDoor } from '../support/door-process.js';
import { rpc } from '../support/rpc.js';
import { rssMiB } from './send.js';

export interface SoakFigures {
  streams: number;
  heldSeconds: number;
  tasks: number;
  heartbeatsMinPerStream: number;
  heartbeatsMaxPerStream: number;
  streamsEndedEarly: number;
  rssBeforeMiB: number;
  rssPeakMiB: number;
  rssAfterMiB: number;
  fdsBefore: number;
  fdsDuring: number;
  fdsAfter: number;
  getTaskP50Ms: number;
  getTaskP99Ms: number;
}

const fds = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;

/** Holds `streams` WatchSession streams for `holdMs` while a task is sent every 100 ms and GetTask is timed. */
export async function runSoak(streams: number, holdMs: number, heartbeatMs = 1000): Promise<SoakFigures> {
  const script = 'default:\n  turns:\n    - text: ["a", "b", "c"]\n      pace_ms: 5\n      answer: done\n';
  const door = await runDoor(makeCapsule(manifestYaml({ name: 'soak' }), script), [], undefined, { env: { MURMUR_HEARTBEAT_MS: String(heartbeatMs) } });
  const target = new URL(door.url);
  await new Promise((resolve) => setTimeout(resolve, 300));
  const fdsBefore = fds(door.pid);
  const rssBeforeMiB = await rssMiB(door.pid);
  const heartbeats = new Array<number>(streams).fill(0);
  let endedEarly = 0;
  let holding = true;
  const body = '{"jsonrpc":"2.0","id":1,"method":"murmur.WatchSession","params":{}}';
  const sockets: net.Socket[] = [];
  for (let i = 0; i < streams; i++) {
    const socket = net.connect(Number(target.port), target.hostname, () =>
      socket.write(
        `POST / HTTP/1.1\r\nHost: ${target.host}\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      ),
    );
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      heartbeats[i] += chunk.split(':heartbeat').length - 1;
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      if (holding) endedEarly += 1;
    });
    sockets.push(socket);
    if (i % 100 === 99) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  let rssPeakMiB = rssBeforeMiB;
  const latencies: number[] = [];
  let tasks = 0;
  let lastId: string | null = null;
  const deadline = Date.now() + holdMs;
  let fdsDuring = 0;
  while (Date.now() < deadline) {
    const sent = await rpc(door.url, 'SendMessage', {
      message: { messageId: `soak-${tasks}`, role: 'ROLE_USER', parts: [{ text: 'go' }] },
      configuration: { returnImmediately: true },
    });
    tasks += 1;
    lastId = sent.json?.result?.task?.id ?? lastId;
    if (lastId) {
      const t0 = performance.now();
      await rpc(door.url, 'GetTask', { id: lastId });
      latencies.push(performance.now() - t0);
    }
    rssPeakMiB = Math.max(rssPeakMiB, await rssMiB(door.pid));
    fdsDuring = Math.max(fdsDuring, fds(door.pid));
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  holding = false;
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const fdsAfter = fds(door.pid);
  const rssAfterMiB = await rssMiB(door.pid);
  await door.stop();
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((latencies.length * p) / 100))] ?? 0;
  return {
    streams,
    heldSeconds: holdMs / 1000,
    tasks,
    heartbeatsMinPerStream: Math.min(...heartbeats),
    heartbeatsMaxPerStream: Math.max(...heartbeats),
    streamsEndedEarly: endedEarly,
    rssBeforeMiB,
    rssPeakMiB,
    rssAfterMiB,
    fdsBefore,
    fdsDuring,
    fdsAfter,
    getTaskP50Ms: pct(50),
    getTaskP99Ms: pct(99),
  };
}
