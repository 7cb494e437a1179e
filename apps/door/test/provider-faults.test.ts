/**
 * The provider drivers under faults, seeded (issue 29): a stream cut mid-way and before its first chunk, 429 with
 * Retry-After, 5xx bursts, headers that never come, malformed SSE, a huge reply, a cancel while streaming, and a key
 * the provider quotes back — each scenario played on a real door against the fake providers, its expectation quoted
 * from docs/drivers.md beside it. The key is then looked for in every file the doors wrote and everything they printed.
 *
 * MURMUR_PROVIDER_FAULT_SEED picks each scenario's driver and parameters (29 unless given). MURMUR_PROVIDER_FAULT_RUNS:
 * 0 (here) plays every scenario once; `npm run soak` draws 200 from the seed. MURMUR_PROVIDER_FAULT_HUGE_MB sizes the
 * huge reply (2 here, 20 in the soak). The figures line says what was played and how it went.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, test } from 'node:test';
import { rssMiB } from './hostile/send.js';
import { taskOf } from './support/assertions.js';
import { prng } from './support/auth.js';
import { ANTHROPIC_KEY, driverManifest, exportKeys, OPENAI_KEY } from './support/driver-capsule.js';
import { type DoorProcess, makeCapsule, runDoor } from './support/door-process.js';
import { FakeProvider } from './support/fake-providers/fake-provider.js';
import type { FakeTurn } from './support/fake-providers/fake-turn.js';
import { assertKeysAbsent } from './support/key-scan.js';
import { send, waitForState } from './support/rpc.js';
import { cancelTask, readTrace } from './support/tasks.js';

const SEED = Number(process.env.MURMUR_PROVIDER_FAULT_SEED ?? 29);
const RUNS = Number(process.env.MURMUR_PROVIDER_FAULT_RUNS ?? 0);
const HUGE_MB = Number(process.env.MURMUR_PROVIDER_FAULT_HUGE_MB ?? 2);

type Choice = 'fast' | 'deep';
interface Ctx {
  choice: Choice;
  door: DoorProcess;
  fake: FakeProvider;
  key: string;
  random: () => number;
}
interface Scenario {
  name: string;
  /** What docs/drivers.md promises, verbatim. */
  expectation: string;
  play(ctx: Ctx): Promise<void>;
}

// biome-ignore lint/suspicious/noExplicitAny: GetTask's answer as JSON
type Task = any;
const statusText = (task: Task): string => task.status.message?.parts?.[0]?.text ?? '';
const answerText = (task: Task): string => task.artifacts?.find((a: { artifactId: string }) => a.artifactId === 'response')?.parts?.[0]?.text ?? '';
const words = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i} `);
/** The event index of a turn's first text chunk: OpenAI's role chunk comes first; Anthropic's message_start, ping, block start. */
const firstTextEvent = (choice: Choice) => (choice === 'fast' ? 1 : 3);
const ANSWER: FakeTurn = { text: ['All ', 'done.'], usage: { input: 10, output: 2 } };

async function runTask(door: DoorProcess, text: string, state: string, timeoutMs = 60_000): Promise<Task> {
  const task = taskOf(await send(door.url, text, {}, { returnImmediately: true }));
  return waitForState(door.url, task.id, state, timeoutMs);
}

function failedRecord(door: DoorProcess, taskId: string) {
  return readTrace(door.recordsDir).find((r) => r.type === 'inference' && r.task_id === taskId && r.stop_reason === 'failed');
}

const SCENARIOS: Scenario[] = [
  {
    name: 'cut mid-way',
    expectation:
      '"the body ended before `[DONE]` / `message_stop` | `the provider closed the stream before it finished` … | yes, if no chunk was streamed yet"; "Nothing is retried once a text or thinking chunk of the attempt was streamed"',
    async play({ choice, door, fake, random }) {
      const n = 3 + Math.floor(random() * 20);
      const cutAt = firstTextEvent(choice) + 1 + Math.floor(random() * (n - 1));
      const before = fake.requests.length;
      fake.enqueue({ text: words(n, 'cut'), fault: { kind: 'disconnect', afterEvents: cutAt } });
      const task = await runTask(door, 'cut mid-way', 'TASK_STATE_FAILED');
      assert.match(statusText(task), new RegExp(`^driver invocation failed: ${choice}: the provider closed the stream before it finished`));
      assert.equal(fake.requests.length - before, 1, 'not retried');
      assert.ok(failedRecord(door, task.id), 'the failed call wrote its inference record');
    },
  },
  {
    name: 'cut before the first chunk',
    expectation: '"the body ended before `[DONE]` / `message_stop` | … | yes, if no chunk was streamed yet"',
    async play({ choice, door, fake }) {
      const before = fake.requests.length;
      fake.enqueue({ text: ['never seen'], fault: { kind: 'disconnect', afterEvents: firstTextEvent(choice) } }, ANSWER);
      const task = await runTask(door, 'cut early', 'TASK_STATE_COMPLETED');
      assert.equal(answerText(task), 'All done.');
      assert.equal(fake.requests.length - before, 2);
    },
  },
  {
    name: '429 with Retry-After',
    expectation: '"the wait is `Retry-After` (seconds or an HTTP date) or `retry-after-ms` when the answer carries one between 0 and **60 s**"',
    async play({ choice, door, fake, random }) {
      const askedMs = 100 + Math.floor(random() * 300);
      const before = fake.requests.length;
      fake.enqueue({ status: 429, headers: { 'retry-after-ms': String(askedMs) }, message: 'Rate limit reached' }, ANSWER);
      const task = await runTask(door, 'rate limited', 'TASK_STATE_COMPLETED');
      const [a, b] = fake.requests.slice(before);
      assert.ok(b.receivedAt - a.receivedAt >= askedMs - 5, `waited ${b.receivedAt - a.receivedAt} ms of ${askedMs}`);
      const retry = readTrace(door.recordsDir).filter((r) => r.type === 'inference_retry' && r.task_id === task.id);
      assert.deepEqual(
        retry.map((r) => [r.driver, r.attempt, r.delay_ms, r.reason]),
        [[choice, 1, askedMs, 'HTTP 429: Rate limit reached']],
      );
    },
  },
  {
    name: '5xx burst',
    expectation:
      '"HTTP 408, 409, 429, 5xx (incl. Anthropic\'s 529 overloaded) | `HTTP <status> after <n> attempts: <the provider\'s error message>` | yes"; "A call makes at most `1 + max_retries` attempts" (max_retries 2)',
    async play({ choice, door, fake, random }) {
      const statuses = choice === 'deep' ? [500, 502, 503, 529] : [500, 502, 503];
      const burst = 1 + Math.floor(random() * 3);
      const replies = Array.from({ length: burst }, () => ({ status: statuses[Math.floor(random() * statuses.length)], message: 'upstream trouble' }));
      const before = fake.requests.length;
      fake.enqueue(...replies, ANSWER);
      if (burst <= 2) {
        const task = await runTask(door, '5xx burst', 'TASK_STATE_COMPLETED');
        assert.equal(answerText(task), 'All done.');
        assert.equal(fake.requests.length - before, burst + 1);
      } else {
        const task = await runTask(door, '5xx burst', 'TASK_STATE_FAILED');
        assert.equal(statusText(task), `driver invocation failed: ${choice}: HTTP ${replies[2].status} after 3 attempts: upstream trouble`);
        assert.equal(fake.requests.length - before, 3);
        assert.ok(failedRecord(door, task.id));
        // The answer queued behind the burst is the next call's: drained so the next scenario starts clean.
        await runTask(door, 'drain', 'TASK_STATE_COMPLETED');
      }
    },
  },
  {
    name: 'headers that never come',
    expectation:
      '"An attempt that receives no byte for this long (before the answer\'s headers or between two chunks) is abandoned as stalled"; "no byte for `idle_timeout_secs` | `the provider sent nothing for <n> s` | yes, if no chunk was streamed yet"',
    async play({ door, fake }) {
      const before = fake.requests.length;
      fake.enqueue({ text: ['x'], fault: { kind: 'no-headers', afterEvents: 0 } }, ANSWER);
      const task = await runTask(door, 'no headers', 'TASK_STATE_COMPLETED');
      assert.equal(answerText(task), 'All done.');
      const [silent, answered] = fake.requests.slice(before);
      assert.ok(answered, 'retried');
      assert.ok(silent.closedEarly && silent.closedAt !== null, 'the silent attempt’s socket was closed');
      const reasons = readTrace(door.recordsDir)
        .filter((r) => r.type === 'inference_retry' && r.task_id === task.id)
        .map((r) => r.reason);
      assert.deepEqual(reasons, ['the provider sent nothing for 1 s']);
    },
  },
  {
    name: 'malformed SSE',
    expectation:
      '"an event that is not JSON | `the provider\'s stream could not be read: event <n> is not JSON` | no"; "an event that is JSON but not an object … | `… event <n> is not an object` | no"',
    async play({ choice, door, fake, random }) {
      const kind = random() < 0.5 ? 'malformed' : 'not-object';
      const at = firstTextEvent(choice) + Math.floor(random() * 3);
      const before = fake.requests.length;
      fake.enqueue({ text: ['a', 'b', 'c'], fault: { kind, afterEvents: at } });
      const task = await runTask(door, 'malformed', 'TASK_STATE_FAILED');
      assert.equal(
        statusText(task),
        `driver invocation failed: ${choice}: the provider's stream could not be read: event ${at + 1} is ${kind === 'malformed' ? 'not JSON' : 'not an object'}`,
      );
      assert.equal(fake.requests.length - before, 1);
      assert.ok(failedRecord(door, task.id));
    },
  },
  {
    name: 'a huge reply',
    expectation: '"`choices[0].delta.content` | a `text` frame with the delta, appended to the reply"; "`content_block_delta` `text_delta` | a `text` frame"',
    async play({ door, fake, random }) {
      const chunk = 1_024;
      const count = Math.round(HUGE_MB * 1_024);
      const salt = Math.floor(random() * 1e9).toString(36);
      const text = Array.from({ length: count }, (_, i) => `${salt}:${i}:`.padEnd(chunk, 'x'));
      fake.enqueue({ text, usage: { input: 10, output: count } });
      const task = await runTask(door, 'a huge reply', 'TASK_STATE_COMPLETED', 120_000);
      const answer = answerText(task);
      assert.equal(answer.length, chunk * count);
      assert.equal(createHash('sha256').update(answer).digest('hex'), createHash('sha256').update(text.join('')).digest('hex'), 'the answer arrived intact');
      figures.hugeMiB = Math.max(figures.hugeMiB, (chunk * count) / 1024 / 1024);
    },
  },
  {
    name: 'a cancel while streaming',
    expectation: '"CancelTask, StopSession and the session\'s end … abort it, which closes the upstream connection at once"',
    async play({ door, fake, random }) {
      const before = fake.requests.length;
      fake.enqueue({ text: words(200, 'slow'), paceMs: 20 });
      const task = taskOf(await send(door.url, 'talk slowly', {}, { returnImmediately: true }));
      const after = 3 + Math.floor(random() * 10);
      await fake.waitFor((r) => r.length > before && (r[before].eventsWritten ?? 0) >= after);
      const canceledAt = Date.now();
      const answer = await cancelTask(door.url, task.id);
      assert.equal(answer.json.result.status.state, 'TASK_STATE_CANCELED');
      await fake.waitFor((r) => r[before].closedAt !== null, 2_000);
      const closedMs = fake.requests[before].closedAt! - canceledAt;
      assert.equal(fake.requests[before].closedEarly, true);
      assert.ok(closedMs < 1_000, `the socket closed ${closedMs} ms after CancelTask`);
      figures.cancelToCloseMaxMs = Math.max(figures.cancelToCloseMaxMs, Math.round(closedMs));
    },
  },
  {
    name: 'the key quoted back',
    expectation:
      '"any occurrence of the key is replaced by `[redacted]`"; the key "is never written to `murmur.yaml`, the trace, the logs, the card or an error message"',
    async play({ choice, door, fake, key }) {
      const before = fake.requests.length;
      fake.enqueue({ status: 401, message: `Incorrect API key provided: ${key}.` });
      const task = await runTask(door, 'bad key', 'TASK_STATE_FAILED');
      assert.equal(statusText(task), `driver invocation failed: ${choice}: HTTP 401: Incorrect API key provided: [redacted].`);
      assert.equal(fake.requests.length - before, 1);
    },
  },
];

const figures = { seed: SEED, played: {} as Record<string, number>, failures: 0, slowestMs: 0, doorRssPeakMiB: 0, hugeMiB: 0, cancelToCloseMaxMs: 0 };

exportKeys();
const fakes = { openai: new FakeProvider('openai', { expectKey: OPENAI_KEY }), anthropic: new FakeProvider('anthropic', { expectKey: ANTHROPIC_KEY }) };
const doors = {} as Record<Choice, DoorProcess>;

before(async () => {
  await fakes.openai.start();
  await fakes.anthropic.start();
  doors.fast = await runDoor(makeCapsule(driverManifest({ start: 'fast', ...fakes, name: 'faults-fast' })));
  doors.deep = await runDoor(makeCapsule(driverManifest({ start: 'deep', ...fakes, name: 'faults-deep' })));
});

after(async () => {
  await Promise.all(Object.values(doors).map((d) => d.stop()));
  for (const door of Object.values(doors)) assertKeysAbsent(door, [OPENAI_KEY, ANTHROPIC_KEY]);
  await fakes.openai.close();
  await fakes.anthropic.close();
});

test(`provider faults, seed ${SEED}: ${RUNS === 0 ? 'every scenario once' : `${RUNS} drawn`}, each as docs/drivers.md says`, async () => {
  const random = prng(SEED);
  const plays = RUNS === 0 ? SCENARIOS : Array.from({ length: RUNS }, () => SCENARIOS[Math.floor(random() * SCENARIOS.length)]);
  const failed: string[] = [];
  for (const [i, scenario] of plays.entries()) {
    const choice: Choice = random() < 0.5 ? 'fast' : 'deep';
    const ctx: Ctx = {
      choice,
      door: doors[choice],
      fake: choice === 'fast' ? fakes.openai : fakes.anthropic,
      key: choice === 'fast' ? OPENAI_KEY : ANTHROPIC_KEY,
      random,
    };
    const started = performance.now();
    try {
      await scenario.play(ctx);
    } catch (error) {
      failed.push(`#${i} ${scenario.name} (${choice}) — expected ${scenario.expectation}: ${(error as Error).message}`);
    }
    figures.slowestMs = Math.max(figures.slowestMs, Math.round(performance.now() - started));
    figures.played[scenario.name] = (figures.played[scenario.name] ?? 0) + 1;
    figures.doorRssPeakMiB = Math.max(figures.doorRssPeakMiB, await rssMiB(ctx.door.pid));
  }
  figures.failures = failed.length;
  console.log(`figures: ${JSON.stringify(figures)}`);
  assert.deepEqual(failed, []);
});
