/** The memory-ceiling scenario (issue 16): a hostile sequence against a door whose heap is capped. */
import net from 'node:net';
import { type DoorProcess, makeCapsule, manifestYaml, runDoor } from '../support/door-process.js';
import { rpc } from '../support/rpc.js';
import { rssMiB } from './send.js';

/** The documented ceiling of the door's RSS under this sequence (docs/reliability.md). */
export const RSS_CEILING_MIB = 640;
export const HEAP_CAP_MIB = 256;

export interface CeilingFigures {
  messages: number;
  messageMiB: number;
  stalledStreams: number;
  rssStartMiB: number;
  rssPeakMiB: number;
  rssEndMiB: number;
  alive: boolean;
}

/** Opens a WatchSession from event 0 whose reader never reads: the door's writes back up. */
function stalledWatch(url: string): net.Socket {
  const target = new URL(url);
  const body = '{"jsonrpc":"2.0","id":1,"method":"murmur.WatchSession","params":{}}';
  const socket = net.connect(Number(target.port), target.hostname, () => {
    socket.write(
      `POST / HTTP/1.1\r\nHost: ${target.host}\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\nLast-Event-ID: 0\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    socket.pause();
  });
  socket.on('error', () => undefined);
  return socket;
}

/**
 * Max-size text messages (each answered with its whole text, so every response is as large as a body may be), sent
 * `parallel` at a time, while `stalled` watchers never read; RSS is sampled every 50 ms.
 */
export async function runMemoryCeiling(options: { messages: number; parallel: number; stalled: number }): Promise<CeilingFigures> {
  const script = 'default:\n  turns:\n    - answer: "{{task.text}}"\n';
  const door: DoorProcess = await runDoor(
    makeCapsule(manifestYaml({ name: 'ceiling', extra: 'context:\n  images:\n    max_bytes: 1000\n    max_per_turn: 1' }), script),
    [],
    undefined,
    {
      nodeFlags: [`--max-old-space-size=${HEAP_CAP_MIB}`],
    },
  );
  const rssStartMiB = await rssMiB(door.pid);
  let rssPeakMiB = rssStartMiB;
  const sampler = setInterval(() => {
    rssMiB(door.pid).then(
      (v) => (rssPeakMiB = Math.max(rssPeakMiB, v)),
      () => undefined,
    );
  }, 50);
  const sockets = Array.from({ length: options.stalled }, () => stalledWatch(door.url));
  // Just under the 8 MiB body limit once the envelope is added.
  const text = 'm'.repeat(8 * 1024 * 1024 - 4096);
  let sent = 0;
  const worker = async () => {
    while (sent < options.messages) {
      sent += 1;
      await rpc(door.url, 'SendMessage', { message: { messageId: `m${sent}`, role: 'ROLE_USER', parts: [{ text }] } }).catch(() => undefined);
    }
  };
  try {
    await Promise.all(Array.from({ length: options.parallel }, worker));
    await rpc(door.url, 'ListTasks', { includeArtifacts: true, pageSize: 100 });
    await rpc(door.url, 'GetTask', { id: 'tsk_00000000000000000000000000000000' });
  } finally {
    clearInterval(sampler);
  }
  const alive = door.child.exitCode === null && door.child.signalCode === null;
  const rssEndMiB = alive ? await rssMiB(door.pid) : 0;
  for (const socket of sockets) socket.destroy();
  await door.stop();
  return { messages: options.messages, messageMiB: text.length / 1024 / 1024, stalledStreams: options.stalled, rssStartMiB, rssPeakMiB, rssEndMiB, alive };
}
