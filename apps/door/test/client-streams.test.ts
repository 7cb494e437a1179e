/**
 * @murmur/client streams over a real door, through a TCP proxy that cuts or stalls the connection while the door
 * runs on (packages/client/README.md "Reconnect: what it can and cannot promise"; docs/streaming.md "Replay").
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { isStreamError, MurmurClient, type MurmurStream, type MurmurStreamEvent } from '@murmur/client';
import { manifest, runDoorWith, sleep, TcpProxy, until } from './support/client-cli.js';
import { type DoorProcess, makeCapsule } from './support/door-process.js';
import { send } from './support/rpc.js';

const FLOOD = 600;
const SCRIPT = `
rules:
  - match: '^slow'
    turns:
      - text: ["a", "b", "c", "d", "e"]
        repeat: 8
        pace_ms: 20
  - match: '^flood'
    turns:
      - text: ["x"]
        repeat: ${FLOOD}
        answer: flooded
  - match: '^say (.*)$'
    turns:
      - answer: "{{match.1}}"
default:
  turns:
    - answer: no rule
`;

/** Reads a stream in the background, keeping every event and how it ended. */
class Consumer {
  readonly events: MurmurStreamEvent[] = [];
  error: unknown = null;
  ended = false;
  readonly done: Promise<void>;
  private readonly listeners = new Set<() => void>();

  constructor(readonly stream: MurmurStream) {
    this.done = (async () => {
      try {
        for await (const event of stream) {
          this.events.push(event);
          this.notify();
        }
      } catch (error) {
        this.error = error;
      } finally {
        this.ended = true;
        this.notify();
      }
    })();
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }

  /** Resolves with the first event matching `predicate`, re-checked after every event. */
  waitFor(predicate: (event: MurmurStreamEvent) => boolean, what: string, timeoutMs = 10_000): Promise<MurmurStreamEvent> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.events.find(predicate);
        if (found) {
          finish();
          resolve(found);
        } else if (this.ended) {
          finish();
          reject(new Error(`stream ended (${String(this.error)}) before ${what}`));
        }
      };
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`timed out waiting for ${what} after ${this.events.length} events`));
      }, timeoutMs);
      const finish = () => {
        clearTimeout(timer);
        this.listeners.delete(check);
      };
      this.listeners.add(check);
      check();
    });
  }

  async stop(): Promise<void> {
    this.stream.abort(new Error('test done'));
    await this.done;
  }
}

const isStatusOf = (taskId: string, state: string) => (e: MurmurStreamEvent) =>
  e.kind === 'status' && e.taskId === taskId && e.response.statusUpdate.status.state === state;
const isAck = (e: MurmurStreamEvent) => e.kind === 'frame' && e.frame.frame === 'connection-ack';

/** A numbered event as (task, kind, id, body): what the door's replay buffer holds. */
function numbered(events: MurmurStreamEvent[], taskId: string): string[] {
  return events.flatMap((e) => {
    if (e.kind === 'connection' || e.id === null || e.taskId !== taskId) return [];
    const kind = e.kind === 'frame' ? `frame:${e.frame.frame}` : e.kind;
    return [`${kind}|${e.id}|${JSON.stringify(e.response)}`];
  });
}

/** The door's whole replay buffer for one task, read directly (WatchSession without Last-Event-ID), up to its completion. */
async function bufferOf(url: string, taskId: string): Promise<MurmurStreamEvent[]> {
  const direct = new Consumer(new MurmurClient(url).watchSession({ reconnect: false }));
  await direct.waitFor(isStatusOf(taskId, 'TASK_STATE_COMPLETED'), 'the replay of the task');
  await direct.stop();
  return direct.events;
}

describe('stream resume through a proxy that cuts the connection', () => {
  let door: DoorProcess;
  let proxy: TcpProxy;
  before(async () => {
    door = await runDoorWith(makeCapsule(manifest({ name: 'resumable' }), SCRIPT));
    proxy = await new TcpProxy(door.url).start();
  });
  after(async () => {
    await proxy?.close();
    await door?.stop();
  });

  test('a cut mid-stream resumes with Last-Event-ID: no event twice, none the buffer holds missing', async () => {
    const client = new MurmurClient(proxy.url, { reconnect: { maxRetries: 5, initialDelayMs: 50, maxDelayMs: 200 } });
    const watch = new Consumer(client.watchSession());
    await watch.waitFor(isAck, 'connection-ack');
    const task = (await send(door.url, 'slow', {}, { returnImmediately: true })).json.result.task.id as string;
    const textFrames = () => watch.events.filter((e) => e.kind === 'frame' && e.frame.frame === 'text').length;
    await until(() => (textFrames() >= 10 ? true : undefined), '10 text frames');
    assert.ok(proxy.cutAll() >= 1, 'the door stays up; only the connection is cut');

    const reconnecting = await watch.waitFor((e) => e.kind === 'connection' && e.state === 'reconnecting', 'a reconnect');
    await watch.waitFor((e) => e.kind === 'connection' && e.state === 'open' && e.attempt === 1, 'the second connection');
    await watch.waitFor(isStatusOf(task, 'TASK_STATE_COMPLETED'), 'the task to complete');
    await watch.stop();

    assert.ok(reconnecting.kind === 'connection' && reconnecting.lastEventId !== null);
    const resumeFrom = reconnecting.kind === 'connection' ? reconnecting.lastEventId : null;
    assert.match(proxy.requestHeads[1], new RegExp(`\\r\\nlast-event-id: ${resumeFrom}\\r\\n`, 'i'), 'the reconnect sent Last-Event-ID');
    assert.doesNotMatch(proxy.requestHeads[0], /last-event-id/i, 'the first connection sent none');

    const received = numbered(watch.events, task);
    assert.equal(new Set(received).size, received.length, 'no event delivered twice');
    const expected = numbered(await bufferOf(door.url, task), task);
    assert.deepEqual(received, expected, 'every buffered event, in order');
    const reopenedAt = watch.events.findIndex((e) => e.kind === 'connection' && e.state === 'open' && e.attempt === 1);
    assert.ok(numbered(watch.events.slice(reopenedAt), task).length > 0, 'events came on the second connection');
  });

  test('a gap when the buffer no longer holds the resume point', async () => {
    const client = new MurmurClient(proxy.url, { reconnect: { maxRetries: 200, initialDelayMs: 20, maxDelayMs: 50 } });
    const first = (await send(door.url, 'say before')).json.result.task.id as string;
    const watch = new Consumer(client.watchSession());
    await watch.waitFor(isStatusOf(first, 'TASK_STATE_COMPLETED'), 'the replay of the first task');
    const resumeFrom = watch.events.filter((e) => e.kind !== 'connection' && e.id !== null).at(-1)!;

    proxy.refuse(true);
    proxy.cutAll();
    await watch.waitFor((e) => e.kind === 'connection' && e.state === 'reconnecting', 'a reconnect attempt');
    // While the client is away, a task writes more events than the buffer holds.
    const flood = (await send(door.url, 'flood')).json.result.task.id as string;
    proxy.refuse(false);

    const gap = await watch.waitFor((e) => e.kind === 'frame' && e.frame.frame === 'gap', 'the gap frame');
    await watch.waitFor(isStatusOf(flood, 'TASK_STATE_COMPLETED'), 'the flood to be replayed');
    await watch.stop();

    const buffer = await bufferOf(door.url, flood);
    const oldest = buffer.find((e) => e.kind !== 'connection' && e.id !== null)!;
    assert.ok(gap.kind === 'frame' && gap.frame.frame === 'gap');
    assert.equal(gap.frame.firstAvailableId, oldest.kind !== 'connection' ? oldest.id : null);
    assert.ok(BigInt(gap.frame.firstAvailableId) > BigInt(resumeFrom.kind !== 'connection' ? resumeFrom.id! : 0) + 1n);
    const head = proxy.requestHeads.at(-1)!;
    assert.match(head, new RegExp(`\\r\\nlast-event-id: ${resumeFrom.kind !== 'connection' ? resumeFrom.id : ''}\\r\\n`, 'i'));

    // After the gap: the whole buffer, 512 events of the flood, none dropped as a repeat.
    const afterGap = numbered(watch.events.slice(watch.events.indexOf(gap)), flood);
    assert.equal(afterGap.length, 512);
    assert.deepEqual(afterGap, numbered(buffer, flood));
  });
});

describe('the heartbeat watchdog', () => {
  let door: DoorProcess;
  let proxy: TcpProxy;
  before(async () => {
    door = await runDoorWith(makeCapsule(manifest({ name: 'heartbeats' }), SCRIPT), { env: { MURMUR_HEARTBEAT_MS: '100' } });
    proxy = await new TcpProxy(door.url).start();
  });
  after(async () => {
    await proxy?.close();
    await door?.stop();
  });

  test('heartbeats keep a quiet stream alive; a stalled connection fails within the timeout', async () => {
    const client = new MurmurClient(proxy.url, { heartbeatTimeoutMs: 500, reconnect: false });
    const watch = new Consumer(client.watchSession());
    await watch.waitFor(isAck, 'connection-ack');
    await sleep(1200);
    assert.equal(watch.ended, false, 'no event for 1.2 s, but heartbeats every 100 ms');

    assert.equal(proxy.stallAll(), 1);
    await watch.done;
    // The watchdog counts from the last bytes the client read, which the proxy passed on no later than that: never
    // sooner than the timeout after them, however late a loaded machine delivered the heartbeats before the stall.
    const elapsed = performance.now() - proxy.lastForwardedAt;
    assert.ok(elapsed >= 500 && elapsed < 3000, `failed ${Math.round(elapsed)} ms after the last bytes it was sent`);
    assert.ok(isStreamError(watch.error));
    assert.equal(watch.error.reason, 'heartbeat-timeout');
    const lost = watch.events.at(-1);
    assert.ok(lost?.kind === 'connection' && lost.state === 'lost' && lost.reason === 'heartbeat-timeout');
    assert.equal(door.child.exitCode, null, 'the door was never stopped');
  });

  test('with reconnect on, a stall is followed by a new connection that carries on', async () => {
    const client = new MurmurClient(proxy.url, { heartbeatTimeoutMs: 500, reconnect: { maxRetries: 3, initialDelayMs: 50, maxDelayMs: 100 } });
    const watch = new Consumer(client.watchSession());
    await watch.waitFor(isAck, 'connection-ack');
    proxy.stallAll();
    const reconnecting = await watch.waitFor((e) => e.kind === 'connection' && e.state === 'reconnecting', 'the reconnect');
    assert.ok(reconnecting.kind === 'connection' && reconnecting.reason === 'heartbeat-timeout');
    await watch.waitFor((e) => e.kind === 'connection' && e.state === 'open' && e.attempt === 1, 'the new connection');
    const task = (await send(door.url, 'say still here')).json.result.task.id as string;
    await watch.waitFor(isStatusOf(task, 'TASK_STATE_COMPLETED'), 'a live event on the new connection');
    await watch.stop();
  });
});
