/**
 * Streams under load (docs/streaming.md "Falling behind", "What each stream writes"): zero loss for a reader that keeps
 * up, a `lagged` frame and the newest 128 events for one that stopped reading, many task streams at once, and every
 * disconnected client released (door.log's open_streams back to 0).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type DoorProcess, makeCapsule, manifestYaml, runDoor } from './support/door-process.js';
import { waitFor } from './support/rpc.js';
import {
  delay,
  frameOf,
  isStatus,
  isTerminalStatus,
  kindOf,
  messageFrameProblem,
  openStreams,
  type SseEvent,
  type SseReader,
  sendStreamingStream,
  streamLog,
  summarize,
  taskIdOf,
  watchSession,
} from './support/sse.js';
import { taskInContext } from './support/tasks.js';

const BURST = 2000;
/**
 * The lag task: LAG_TURNS inference calls of LAG_PER chunks each, with no pace. Each call's chunks are written in one
 * tick; a 1 ms sleep_ms between calls lets the socket back up between bursts (a burst to a socket that keeps up is
 * written whole). About 13 MB in all, well past what the kernel buffers of a reader that stopped reading hold.
 */
const LAG_TURNS = 40;
const LAG_PER = 250;
const LAG_CHUNK = 'y'.repeat(1000);
/** SUBMITTED, then per call: inference turn, LAG_PER chunks, the final text; then the answer call: turn, whole text, artifact, COMPLETED. */
const LAG_EVENTS = 1 + LAG_TURNS * (LAG_PER + 2) + 4;

const lagTurns = Array.from({ length: LAG_TURNS }, () => `      - sleep_ms: 1\n        text: ["${LAG_CHUNK}"]\n        repeat: ${LAG_PER}\n`).join('');

const SCRIPT = `
rules:
  - match: '^burst'
    turns:
      - text: ["a", "b", "c", "d"]
        repeat: ${BURST / 4}
        answer: burst over
  - match: '^lag'
    turns:
${lagTurns}      - answer: lag over
  - match: '^count (\\d+)'
    turns:
      - text: ["{{match.1}}-a", "{{match.1}}-b"]
        pace_ms: 5
        answer: "{{match.1}}"
default:
  turns:
    - answer: no rule
`;

let door: DoorProcess;
before(async () => {
  door = await runDoor(makeCapsule(manifestYaml({ acceptance: 'queue', maxTurns: LAG_TURNS + 4 }), SCRIPT));
});
after(() => door.stop());

const results = (events: SseEvent[]) => events.map((e) => [e.id ?? null, e.data.result]);
const isLagged = (e: SseEvent) => frameOf(e)?.frame === 'lagged';

/** The whole replay buffer, read by a fresh WatchSession. */
async function bufferNow(): Promise<SseEvent[]> {
  const stream = await watchSession(door.url);
  await stream.waitForCount(1);
  await delay(200);
  stream.abort();
  return stream.events.slice(1);
}

test(`a reader that keeps up loses nothing: ${BURST} chunks written in one burst reach a WatchSession and an activated SendStreamingMessage whole`, async () => {
  const watcher = await watchSession(door.url);
  await watcher.waitForCount(1);
  const own = await sendStreamingStream(door.url, 'burst', { activate: true });
  const ownEvents = await own.waitForEnd(20_000);
  const id = taskIdOf(ownEvents[0])!;
  await watcher.waitForEvent((e) => taskIdOf(e) === id && isStatus(e, 'TASK_STATE_COMPLETED'), 'the burst’s end', 20_000);
  watcher.abort();
  assert.deepEqual(watcher.events.filter(isLagged), [], 'no lagged frame');
  assert.deepEqual(ownEvents.filter(isLagged), []);
  const watched = watcher.events.filter((e) => taskIdOf(e) === id);
  // SUBMITTED, inference turn 1 (0), BURST chunks (1 … BURST), the final text, the artifact, COMPLETED.
  assert.equal(watched.length, BURST + 5, `${watched.length} events`);
  const ids = watched.slice(1).map((e) => Number(e.id));
  assert.deepEqual(
    ids,
    Array.from({ length: BURST + 4 }, (_, i) => i),
    'every id, in order',
  );
  const texts = watched
    .map(frameOf)
    .filter((f) => f?.frame === 'text' && !f.final)
    .map((f) => f.text);
  assert.equal(texts.join(''), 'abcd'.repeat(BURST / 4));
  // The task's own stream carries the same events after its opening task.
  assert.deepEqual(results(ownEvents.slice(1)), results(watched.slice(1)));
  // And the replay buffer holds exactly the newest 512 of them.
  assert.deepEqual(results(await bufferNow()), results(watched.filter((e) => e.id !== undefined).slice(-512)));
});

/**
 * Checks what a reader that stopped reading got for one task's live events: lagged frames with dropped > 0, each
 * exactly where that many ids are missing, nothing missing elsewhere, every event delivered or counted, and after the
 * last lagged frame at most 128 events, the newest of the session.
 */
function assertLagged(events: SseEvent[], taskId: string, total: number, buffer: SseEvent[], isLaggedFrame: (e: SseEvent) => boolean): void {
  const lagged = events.map((e, i) => [i, e] as const).filter(([, e]) => isLaggedFrame(e));
  assert.ok(lagged.length >= 1, 'at least one lagged frame');
  for (const [, e] of lagged) assert.ok(Number.isInteger(frameOf(e).dropped) && frameOf(e).dropped > 0, JSON.stringify(frameOf(e)));
  const dropped = lagged.reduce((sum, [, e]) => sum + frameOf(e).dropped, 0);
  const received = events.filter((e) => !isLaggedFrame(e));
  assert.ok(
    received.every((e) => taskIdOf(e) === taskId),
    'only the task’s events and lagged frames',
  );
  assert.equal(received.length + dropped, total, 'every event was either delivered or counted as dropped');
  // The dropped events are the oldest queued ones: each lagged frame sits where exactly `dropped` ids are missing.
  for (const [i, e] of lagged) {
    const before = events[i - 1];
    const next = events[i + 1];
    assert.ok(before?.id !== undefined && next?.id !== undefined, `ids around the lagged frame at ${i}`);
    assert.equal(Number(next.id) - Number(before.id) - 1, frameOf(e).dropped, `the gap at ${i}`);
  }
  // Elsewhere nothing is missing: ids advance by at most one.
  for (let i = 1; i < events.length; i++) {
    if (isLaggedFrame(events[i]) || isLaggedFrame(events[i - 1]) || events[i - 1].id === undefined) continue;
    const step = Number(events[i].id) - Number(events[i - 1].id);
    assert.ok(step === 0 || step === 1, `step ${step} at ${i}: ${summarize(events.slice(i - 1, i + 1))}`);
  }
  // After the last lagged frame: no more than the queue's 128, and they are the newest events of the session.
  const tail = events.slice(lagged.at(-1)![0] + 1);
  assert.ok(tail.length >= 1 && tail.length <= 128, `${tail.length} events after the last lagged frame`);
  assert.ok(isStatus(tail.at(-1)!, 'TASK_STATE_COMPLETED'));
  assert.deepEqual(results(tail), results(buffer.slice(-tail.length)));
}

test('readers that stop reading: on resuming, a lagged frame with dropped > 0, then only the newest events (at most 128)', async () => {
  const replayed = (await bufferNow()).length;
  const watcher = await watchSession(door.url, { paused: true });
  // The task's own stream, activated, also stops reading: its lagged frame rides a carrier of the task.
  const own = await sendStreamingStream(door.url, 'lag', { activate: true, paused: true, message: { contextId: 'lag-ctx' } });
  const done = await taskInContext(door.url, 'lag-ctx', 'TASK_STATE_COMPLETED', 30_000);
  const buffer = await bufferNow();
  watcher.resume();
  own.resume();
  const ownEvents = await own.waitForEnd(30_000);
  await watcher.waitForEvent((e) => taskIdOf(e) === done.id && isStatus(e, 'TASK_STATE_COMPLETED'), 'the lag task’s end', 30_000);
  await delay(100);
  watcher.abort();

  assert.equal(frameOf(watcher.events[0])?.frame, 'connection-ack');
  // WatchSession: the live events after the ack and the replay of the buffer as it stood; lagged is a message frame.
  const watched = watcher.events.slice(1 + replayed);
  for (const e of watched.filter(isLagged)) assert.equal(messageFrameProblem(e, 'lagged'), null);
  assertLagged(watched, done.id, LAG_EVENTS, buffer, isLagged);

  // SendStreamingMessage: the opening task, then the task's events (no SUBMITTED status); lagged rides a carrier.
  assert.equal(kindOf(ownEvents[0]), 'task');
  const carried = ownEvents.slice(1);
  for (const e of carried.filter(isLagged)) {
    assert.equal(kindOf(e), 'frame:lagged');
    assert.equal(e.id, undefined);
    assert.equal(e.data.result.statusUpdate?.taskId, done.id, 'a carrier of the followed task');
    assert.deepEqual(Object.keys(e.data.result.statusUpdate.status).sort(), ['state', 'timestamp']);
  }
  assertLagged(carried, done.id, LAG_EVENTS - 1, buffer, isLagged);
});

test('ten SendStreamingMessage at once under queue: each stream carries only its own task and ends after its own terminal status', async () => {
  const streams = await Promise.all(Array.from({ length: 10 }, (_, n) => sendStreamingStream(door.url, `count ${n}`, { activate: n % 2 === 0 })));
  const all = await Promise.all(streams.map((s) => s.waitForEnd(20_000)));
  const ids = new Set<string>();
  all.forEach((events, n) => {
    const opening = events[0];
    assert.equal(kindOf(opening), 'task');
    const id = opening.data.result.task.id;
    ids.add(id);
    assert.ok(
      events.every((e) => taskIdOf(e) === id),
      `stream ${n} carries only its task:\n${summarize(events)}`,
    );
    assert.equal(events.filter(isTerminalStatus).length, 1);
    assert.ok(isStatus(events.at(-1)!, 'TASK_STATE_COMPLETED'), summarize(events));
    const answer = events.find((e) => kindOf(e) === 'artifact')!.data.result.artifactUpdate.artifact.parts[0].text;
    assert.equal(answer, String(n));
    const texts = events
      .map(frameOf)
      .filter((f) => f?.frame === 'text' && !f.final)
      .map((f) => f.text);
    assert.deepEqual(texts, n % 2 === 0 ? [`${n}-a`, `${n}-b`] : []);
  });
  assert.equal(ids.size, 10);
});

test('twenty WatchSession connections aborted by their clients: door.log’s open_streams returns to 0', async () => {
  await waitFor(async () => (openStreams(door.recordsDir) === 0 ? true : undefined), 'no stream open before', 5000);
  const logged = streamLog(door.recordsDir).length;
  const watchers: SseReader[] = await Promise.all(Array.from({ length: 20 }, () => watchSession(door.url)));
  await Promise.all(watchers.map((w) => w.waitForCount(1)));
  const opened = await waitFor(
    async () => {
      const entries = streamLog(door.recordsDir).slice(logged);
      return entries.filter((e) => e.message === 'stream opened').length === 20 ? entries : undefined;
    },
    '20 stream opened entries',
    5000,
  );
  assert.equal(Math.max(...opened.map((e) => Number(e.open_streams))), 20, 'all twenty open at once');
  for (const w of watchers) w.abort();
  await Promise.all(watchers.map((w) => w.done));
  const entries = await waitFor(
    async () => {
      const now = streamLog(door.recordsDir).slice(logged);
      return now.filter((e) => e.message === 'stream closed').length === 20 ? now : undefined;
    },
    '20 stream closed entries',
    5000,
  );
  assert.ok(entries.every((e) => e.method === 'murmur.WatchSession'));
  assert.equal(entries.at(-1)!.message, 'stream closed');
  assert.equal(entries.at(-1)!.open_streams, 0, 'every subscription released');
  // Each entry counts the streams open at that moment: +1 per opening, −1 per closing.
  let open = 0;
  for (const e of entries) {
    open += e.message === 'stream opened' ? 1 : -1;
    assert.equal(e.open_streams, open, JSON.stringify(e));
  }
  // The door keeps serving: a new watcher is counted from 0.
  const again = await watchSession(door.url);
  await again.waitForCount(1);
  again.abort();
  await waitFor(async () => (openStreams(door.recordsDir) === 0 ? true : undefined), 'the last one closed', 5000);
});
