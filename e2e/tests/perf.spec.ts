/**
 * The 2,000 frames/s check: a capsule streams 10,000 text chunks at about 2,000 a second while the console watches
 * the session. Every frame must be received and rendered (window.__murmurConsole), and the page must keep answering
 * keys. Its responsiveness — animation-frame gaps and key-to-paint latency measured in the page while the stream
 * runs — and the door's rate are figures with targets, reported rather than asserted (speed is the bench's to judge,
 * not a timed test's): they go to e2e/test-results/perf.json with each target and whether it was met, and
 * apps/door/bench/console-perf.ts reports them in `npm run bench`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { MurmurClient } from '@murmur/client';
import { type Capsule, clientOf, makeCapsule } from '../support/capsules.js';
import { openDoor, perfCounters, timelineOf } from '../support/console.js';
import { type Door, expect, measuring, REPO, test } from '../support/fixtures.js';

const TURNS = 100;
const CHUNKS_PER_TURN = 100;
const CHUNKS = TURNS * CHUNKS_PER_TURN;
/** A pause before each burst of 100 chunks: 100 bursts in about 5 s is about 2,000 chunks a second. */
const SLEEP_MS = 48;

// Targets for a 2-core machine running the door, mur console, Chromium and the test at once (reported, not asserted).
const MAX_RAF_GAP_MS = 200;
const MAX_KEY_TO_PAINT_MS = 250;
const MAX_BATCH_MS = 100;

interface Probe {
  running: boolean;
  frames: number;
  gaps: number[];
  keys: number[];
}

interface DoorSide {
  events: number;
  chunks: number;
  lagged: number;
  firstChunkMs: number;
  lastChunkMs: number;
}

/** What the door really emits, read by a second watcher in the test process (the SDK, straight to the door). */
async function watchDoor(client: MurmurClient, signal: AbortSignal, ready: () => void): Promise<DoorSide> {
  const side: DoorSide = { events: 0, chunks: 0, lagged: 0, firstChunkMs: 0, lastChunkMs: 0 };
  for await (const event of client.watchSession({ signal })) {
    if (event.kind === 'connection') {
      if (event.state === 'open') ready();
      continue;
    }
    // The task's events (the connection-ack is the session's, and the page counted its own before the task).
    if (event.taskId !== null) side.events += 1;
    if (event.kind === 'frame' && event.frame.frame === 'text' && event.frame.text !== '') {
      side.chunks += 1;
      side.lastChunkMs = performance.now();
      if (side.firstChunkMs === 0) side.firstChunkMs = side.lastChunkMs;
    }
    if (event.kind === 'frame' && event.frame.frame === 'lagged') side.lagged += event.frame.dropped;
    if (event.kind === 'status' && event.response.statusUpdate.status.state === 'TASK_STATE_COMPLETED') break;
  }
  return side;
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const round = (n: number) => Math.round(n * 10) / 10;

test.describe('performance', () => {
  let capsule: Capsule;
  let door: Door;

  test.beforeAll(async ({ murmur }) => {
    const chunks = Array.from({ length: 10 }, (_, i) => `c${i} `);
    capsule = makeCapsule({
      name: 'firehose',
      maxTurns: TURNS + 5,
      rules: [
        {
          match: 'firehose',
          turns: Array.from({ length: TURNS }, (_, i) => ({
            sleep_ms: SLEEP_MS,
            text: chunks,
            repeat: CHUNKS_PER_TURN / chunks.length,
            ...(i === TURNS - 1 ? { answer: 'firehose done' } : {}),
          })),
        },
      ],
    });
    door = await murmur.startDoor(capsule.dir);
  });

  test.afterAll(async () => {
    await door?.stop();
    capsule?.remove();
  });

  test('2,000 frames/s: every frame received and rendered, the page answering keys; its timings reported against their targets', async ({ page, murmur }) => {
    test.setTimeout(90_000);
    await openDoor(page, murmur.consoleUrl, door.address);
    const client = clientOf(door);
    const abort = new AbortController();
    let watching: () => void = () => {};
    const opened = new Promise<void>((resolve) => (watching = resolve));
    const doorSide = watchDoor(client, abort.signal, watching);
    await opened;

    // The probe: every animation frame's gap, and each key press's delay until the frame after it.
    await page.evaluate(() => {
      const probe: Probe = { running: true, frames: 0, gaps: [], keys: [] };
      (window as unknown as { __probe: Probe }).__probe = probe;
      let last = performance.now();
      const frame = (now: number) => {
        probe.frames += 1;
        probe.gaps.push(now - last);
        last = now;
        if (probe.running) requestAnimationFrame(frame);
      };
      requestAnimationFrame(frame);
      document.addEventListener(
        'keydown',
        (event) => {
          const pressed = event.timeStamp;
          requestAnimationFrame(() => setTimeout(() => probe.keys.push(performance.now() - pressed), 0));
        },
        true,
      );
    });
    const before = await perfCounters(page);

    const started = performance.now();
    const task = await client.sendText('firehose', { returnImmediately: true });
    // While it streams, an operator types in the Message box now and then.
    const message = page.getByLabel('Message');
    let done = false;
    const finished = doorSide.then((side) => {
      done = true;
      return side;
    });
    let presses = 0;
    while (!done) {
      await message.press('x');
      presses += 1;
      await page.waitForTimeout(250);
    }
    const side = await finished;
    const wallSeconds = (performance.now() - started) / 1000;
    abort.abort();

    // Everything the door sent was received and rendered.
    await expect.poll(async () => (await perfCounters(page)).framesReceived - before.framesReceived, { timeout: 20_000 }).toBe(side.events);
    await expect
      .poll(async () => {
        const c = await perfCounters(page);
        return c.framesRendered === c.framesReceived;
      })
      .toBe(true);
    const after = await perfCounters(page);
    // Every key pressed while it streamed was answered (painted); how fast is a reported figure, below.
    await expect.poll(() => page.evaluate(() => (window as unknown as { __probe: Probe }).__probe.keys.length)).toBe(presses);
    const probe = await page.evaluate(() => {
      const p = (window as unknown as { __probe: Probe }).__probe;
      p.running = false;
      return { frames: p.frames, gaps: p.gaps.slice(1), keys: p.keys };
    });
    const timeline = timelineOf(page, door);
    const domRows = await timeline.locator('.virtual-row').count();
    await message.fill('');

    const chunkSeconds = (side.lastChunkMs - side.firstChunkMs) / 1000;
    const figures = {
      measuredWith: `Chromium headless, ${TURNS} bursts of ${CHUNKS_PER_TURN} text chunks, ${SLEEP_MS} ms apart`,
      door: {
        chunks: side.chunks,
        events: side.events,
        seconds: round(chunkSeconds),
        chunksPerSecond: Math.round(side.chunks / chunkSeconds),
        lagged: side.lagged,
      },
      console: {
        framesReceived: after.framesReceived - before.framesReceived,
        framesRendered: after.framesRendered - before.framesRendered,
        batches: after.batches - before.batches,
        maxBatchMs: after.maxBatchMs,
        lastBatchMs: after.lastBatchMs,
        timelineRowsInDom: domRows,
      },
      responsiveness: {
        animationFrames: probe.frames,
        maxFrameGapMs: round(Math.max(...probe.gaps)),
        p95FrameGapMs: round(percentile(probe.gaps, 95)),
        framesOver50Ms: probe.gaps.filter((g) => g > 50).length,
        keyPresses: probe.keys.length,
        maxKeyToPaintMs: round(Math.max(...probe.keys)),
        medianKeyToPaintMs: round(percentile(probe.keys, 50)),
      },
      wallSeconds: round(wallSeconds),
      // Timing targets are reported, not asserted: a loaded machine's scheduling is not the console's behaviour, and
      // `npm run bench` shows these figures beside their targets (bench/console-perf.ts reads this file).
      targets: {
        doorChunksPerSecondAbove: 1_500,
        maxBatchMsBelow: MAX_BATCH_MS,
        maxFrameGapMsBelow: MAX_RAF_GAP_MS,
        maxKeyToPaintMsBelow: MAX_KEY_TO_PAINT_MS,
        met: {
          doorChunksPerSecond: Math.round(side.chunks / chunkSeconds) > 1_500,
          maxBatchMs: after.maxBatchMs < MAX_BATCH_MS,
          maxFrameGapMs: Math.max(...probe.gaps) < MAX_RAF_GAP_MS,
          maxKeyToPaintMs: Math.max(...probe.keys) < MAX_KEY_TO_PAINT_MS,
        },
      },
    };
    if (measuring()) {
      const file = path.join(REPO, 'e2e/test-results/perf.json');
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, `${JSON.stringify(figures, null, 2)}\n`);
    }
    await test.info().attach('perf.json', { body: JSON.stringify(figures, null, 2), contentType: 'application/json' });
    console.log(`perf: ${JSON.stringify(figures)}`);

    // The timeline follows the newest row: the task's answer, the header (scrolled out) counted in the bar.
    await expect(timeline.locator('.tl-artifact').filter({ hasText: 'firehose done' })).toHaveCount(1);
    await expect(page.getByText(/^1 task · [\d,]+ rows$/)).toBeVisible();
    expect(task.status.state).toBe('TASK_STATE_SUBMITTED');
    expect(side.chunks).toBe(CHUNKS);
    expect(side.lagged).toBe(0);
    expect(figures.console.framesReceived).toBe(side.events);
    expect(figures.console.framesRendered).toBe(figures.console.framesReceived);
    // The page kept answering keys while it rendered: each of the operator's presses (above), however many the
    // stream's length left room for.
    expect(probe.keys.length).toBe(presses);
    // Virtualized: a few dozen rows in the DOM, not ten thousand.
    expect(domRows).toBeLessThan(100);
  });
});
