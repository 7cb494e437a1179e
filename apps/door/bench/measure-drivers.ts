/**
 * The provider drivers on loopback, per driver (docs/drivers.md): a door whose one choice points at a fake provider
 * in this process, and a murmur.WatchSession reader beside it. Three figures, reported, not asserted:
 * - the fake's first byte of an answer → the first text frame at the reader (p50/p99 over many tasks);
 * - text chunks/s end to end (the fake's first byte → the task's COMPLETED status at the reader) against the fake's
 *   own emission rate, for one long unpaced answer, with how many of its text frames the reader received (the door
 *   drops the oldest for a reader that falls 128 events behind, with a `lagged` frame);
 * - CancelTask → the upstream request aborted (the fake sees its socket close), p99.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { METHOD, STREAM_EXTENSION_URI } from '@murmur/protocol';
import { createParser } from 'eventsource-parser';
import { FakeProvider, type FakeKind, preciseNow } from '../test/support/fake-providers/fake-provider.js';
import { startDoor } from './door-process.js';
import { RPC_HEADERS, rpc, rpcBody, sendParams } from './rpc-client.js';
import { quantile, sortedCopy } from './stats.js';

export interface DriverMeasurement {
  driver: 'openai-compatible' | 'anthropic';
  firstTextMs: { p50: number; p99: number; samples: number };
  /** One long answer: chunks the fake sent, text frames the reader received, events the door dropped for it (lagged). */
  chunks: { count: number; received: number; dropped: number; fakePerSecond: number; endToEndPerSecond: number };
  cancelToAbortMs: { p50: number; p99: number; samples: number };
}

const FIRST_TEXT_TASKS = 60;
const LONG_CHUNKS = 5_000;
const CANCEL_TASKS = 25;

function writeCapsule(dir: string, kind: FakeKind, fake: FakeProvider): string {
  mkdirSync(dir, { recursive: true });
  const driver = kind === 'openai' ? 'openai-compatible' : 'anthropic';
  writeFileSync(
    path.join(dir, 'murmur.yaml'),
    `name: bench-${driver}\nversion: 0.1.0\nlifecycle:\n  task_acceptance: queue\ninference:\n  driver: model\n  max_turns: 4\n  choices:\n    model:\n      driver: ${driver}\n      base_url: ${fake.baseUrl}\n      model: bench-model\n      max_retries: 0\n`,
  );
  return dir;
}

/** A WatchSession reader noting, per task, when its first and latest text frames arrived and how many came. */
class TextFrames {
  readonly tasks = new Map<string, { first: number; last: number; count: number }>();
  /** When each task's COMPLETED status arrived. */
  readonly ended = new Map<string, number>();
  /** Events the door dropped for this reader (its `lagged` frames). */
  dropped = 0;
  private readonly waiters = new Set<() => void>();
  private readonly controller = new AbortController();

  async open(url: string): Promise<void> {
    const response = await fetch(`${url}/`, {
      method: 'POST',
      headers: RPC_HEADERS,
      body: rpcBody(METHOD.WatchSession, {}, 1),
      signal: this.controller.signal,
    });
    const parser = createParser({
      onEvent: (event) => {
        const result = JSON.parse(event.data)?.result;
        const lagged = result?.message?.metadata?.[STREAM_EXTENSION_URI];
        if (lagged?.frame === 'lagged') this.dropped += Number(lagged.dropped ?? 0);
        const frame = result?.statusUpdate;
        const meta = frame?.metadata?.[STREAM_EXTENSION_URI];
        if (!meta && frame?.status?.state === 'TASK_STATE_COMPLETED') {
          this.ended.set(frame.taskId, preciseNow());
          for (const waiter of [...this.waiters]) waiter();
        }
        if (meta?.frame !== 'text' || meta.text === '') return;
        const now = preciseNow();
        const seen = this.tasks.get(frame.taskId) ?? { first: now, last: now, count: 0 };
        seen.last = now;
        seen.count += 1;
        this.tasks.set(frame.taskId, seen);
        for (const waiter of [...this.waiters]) waiter();
      },
    });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    void (async () => {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          parser.feed(decoder.decode(value, { stream: true }));
        }
      } catch {
        // closed by close()
      }
    })();
  }

  until(predicate: () => boolean, timeoutMs = 20_000): Promise<void> {
    if (predicate()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!predicate()) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      const timer = setTimeout(() => reject(new Error('bench: the text frames did not arrive')), timeoutMs);
      this.waiters.add(check);
    });
  }

  close(): void {
    this.controller.abort();
  }
}

async function startTask(url: string, text: string): Promise<string> {
  const answer = await rpc(url, METHOD.SendMessage, {
    ...sendParams(text, `msg-bench-drv-${Math.random().toString(36).slice(2)}`),
    configuration: { returnImmediately: true },
  });
  const id = (answer.result?.task as { id?: string } | undefined)?.id;
  if (typeof id !== 'string') throw new Error(`bench: SendMessage did not start a task: ${JSON.stringify(answer)}`);
  return id;
}

const stats = (values: number[]) => {
  const sorted = sortedCopy(values);
  return { p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99), samples: values.length };
};

export async function measureDriver(root: string, kind: FakeKind, log: (line: string) => void): Promise<DriverMeasurement> {
  const driver = kind === 'openai' ? 'openai-compatible' : 'anthropic';
  const fake = await new FakeProvider(kind).start();
  const door = await startDoor({ home: path.join(root, `home-${driver}`), capsuleDir: writeCapsule(path.join(root, `capsule-${driver}`), kind, fake) });
  const frames = new TextFrames();
  try {
    await frames.open(door.url);
    log(`${driver}: first byte → first text frame over ${FIRST_TEXT_TASKS} tasks`);
    const firstText: number[] = [];
    for (let i = 0; i < FIRST_TEXT_TASKS; i++) {
      const before = fake.requests.length;
      fake.enqueue({ text: ['Hello', ' there', '.'], usage: { input: 10, output: 3 } });
      const id = await startTask(door.url, `first text ${i}`);
      await frames.until(() => frames.tasks.has(id));
      const request = fake.requests[before];
      if (i >= 5) firstText.push(frames.tasks.get(id)!.first - request.firstByteAt!);
      await frames.until(() => (frames.tasks.get(id)?.count ?? 0) >= 3);
    }

    log(`${driver}: ${LONG_CHUNKS} chunks, unpaced`);
    const before = fake.requests.length;
    fake.enqueue({ text: Array.from({ length: LONG_CHUNKS }, (_, i) => `c${i} `), usage: { input: 10, output: LONG_CHUNKS } });
    const longId = await startTask(door.url, 'long answer');
    const droppedBefore = frames.dropped;
    await frames.until(() => frames.ended.has(longId), 60_000);
    const long = fake.requests[before];
    const seen = frames.tasks.get(longId)!;
    const fakeSecs = (long.lastEventAt! - long.firstByteAt!) / 1000;
    // Through the door: every chunk became a frame by the task's completion, even those a slow reader lost (lagged).
    const endSecs = (frames.ended.get(longId)! - long.firstByteAt!) / 1000;

    log(`${driver}: CancelTask → upstream abort over ${CANCEL_TASKS} tasks`);
    const cancel: number[] = [];
    for (let i = 0; i < CANCEL_TASKS; i++) {
      const index = fake.requests.length;
      fake.enqueue({ text: Array.from({ length: 400 }, (_, n) => `w${n} `), paceMs: 10 });
      const id = await startTask(door.url, `cancel ${i}`);
      await frames.until(() => (frames.tasks.get(id)?.count ?? 0) >= 2);
      const t0 = preciseNow();
      await rpc(door.url, METHOD.CancelTask, { id });
      await fake.waitFor((r) => r[index]?.closedAt != null, 5_000);
      cancel.push(fake.requests[index].closedAt! - t0);
    }
    return {
      driver,
      firstTextMs: stats(firstText),
      chunks: {
        count: LONG_CHUNKS,
        received: seen.count,
        dropped: frames.dropped - droppedBefore,
        fakePerSecond: LONG_CHUNKS / fakeSecs,
        endToEndPerSecond: LONG_CHUNKS / endSecs,
      },
      cancelToAbortMs: stats(cancel),
    };
  } finally {
    frames.close();
    await door.stop();
    await fake.close();
  }
}

export function renderDrivers(measurements: DriverMeasurement[]): string {
  const f = (n: number, digits = 2) => n.toFixed(digits);
  const lines = [
    '',
    'Provider drivers on loopback (fake providers; reported, not asserted)',
    'driver              first byte→first text p50/p99 ms   chunks/s fake → end to end (frames read)   CancelTask→upstream abort p50/p99 ms',
  ];
  for (const m of measurements) {
    lines.push(
      `${m.driver.padEnd(20)}${`${f(m.firstTextMs.p50)} / ${f(m.firstTextMs.p99)}`.padEnd(35)}${`${Math.round(m.chunks.fakePerSecond)} → ${Math.round(m.chunks.endToEndPerSecond)} (${m.chunks.received}/${m.chunks.count})`.padEnd(42)}${f(m.cancelToAbortMs.p50)} / ${f(m.cancelToAbortMs.p99)}`,
    );
  }
  return `${lines.join('\n')}\n`;
}
