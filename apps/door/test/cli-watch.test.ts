/**
 * `mur watch` end to end (seed 001, "What `mur watch` implements", over murmur.WatchSession as docs/streaming.md
 * carries it): replay on attach, status/artifact/text printing, capsule-closed, a lost connection (E-IO-003), gap,
 * lagged and unknown frames, and the token it sends.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { manifest, type MurProcess, replayedIds, runMur, spawnMur, type TinyServer, tinyServer, until, watchStreamsOpened } from './support/client-cli.js';
import { type DoorProcess, makeCapsule, runDoor, tempDir } from './support/door-process.js';
import { send } from './support/rpc.js';

const SCRIPT = `
rules:
  - match: '^chunks'
    turns:
      - text: ["alpha ", "beta ", "gamma"]
        pace_ms: 10
  - match: '^think'
    turns:
      - thinking: ["a secret chain of thought"]
        answer: thought
  - match: '^tool'
    turns:
      - tools:
          - tool: bash
            input: { command: "exit 3" }
        answer: "tool said {{tool.exit_code}}"
  - match: '^inject'
    turns:
      - tools:
          - tool: bash
            input: { command: "printf 'clear\\\\033[2J\\\\033]52;c;cGF5bG9hZA==\\\\007 then\\\\rhidden \\\\342\\\\200\\\\256txt'" }
        answer: "{{tool.stdout}}"
  - match: '^say (.*)$'
    turns:
      - answer: "{{match.1}}"
default:
  turns:
    - answer: no rule
`;

const TIME = '\\d\\d:\\d\\d:\\d\\d';
const taskOf = (answer: Awaited<ReturnType<typeof send>>): string => answer.json.result.task.id as string;

describe('mur watch on a live door', () => {
  let door: DoorProcess;
  let watcher: MurProcess | undefined;
  before(async () => {
    door = await runDoor(makeCapsule(manifest({ name: 'watched' }), SCRIPT));
  });
  after(async () => {
    watcher?.kill('SIGKILL');
    await door.stop('SIGKILL');
  });

  test('replays the buffer on attach, prints live statuses, text, tool results and responses; exits 0 on capsule-closed', async () => {
    const chunks = taskOf(await send(door.url, 'chunks'));
    const tool = taskOf(await send(door.url, 'tool'));
    const think = taskOf(await send(door.url, 'think'));

    watcher = spawnMur(['watch'], door.home);
    // The replay: sent without Last-Event-ID, the v1.0 door replays its whole buffer after connection-ack.
    await watcher.waitFor(new RegExp(`${think}  completed`), 'the replay of the last task');
    const out = watcher.stdout();
    assert.match(
      out,
      new RegExp(
        `^${TIME}  ${chunks}  working  inference turn 1\\nalpha beta gamma\\n${TIME}  ${chunks}  response: alpha beta gamma\\n${TIME}  ${chunks}  completed`,
        'm',
      ),
    );
    assert.match(out, new RegExp(`^${TIME}  ${tool}  tool bash exit 3 \\(\\d+ ms\\)$`, 'm'));
    assert.match(out, new RegExp(`^${TIME}  ${tool}  response: tool said 3$`, 'm'));
    assert.match(out, new RegExp(`^${TIME}  ${think}  response: thought$`, 'm'));
    assert.doesNotMatch(out, /secret chain of thought/, 'thinking is not shown');
    assert.equal(watcher.stderr(), '');

    // Live events after the replay, including the submitted status of a new task.
    const live = taskOf(await send(door.url, 'say live and well'));
    await watcher.waitFor(new RegExp(`${live}  completed`), 'the live task');
    assert.match(watcher.stdout(), new RegExp(`^${TIME}  ${live}  submitted\\n${TIME}  ${live}  working  inference turn 1\\nlive and well\\n`, 'm'));

    // What a command prints reaches the terminal escaped: no screen clear, no clipboard write (OSC 52), no carriage
    // return over the line, no reordering (docs/sandbox.md, "Output is data").
    const injected = taskOf(await send(door.url, 'inject'));
    await watcher.waitFor(new RegExp(`${injected}  completed`), 'the injecting task');
    const printed = watcher.stdout();
    assert.ok(printed.includes(`${injected}  response: clear\\u001b[2J\\u001b]52;c;cGF5bG9hZA==\\u0007 then\\rhidden \\u202etxt\n`), printed);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the characters that must not reach the terminal
    assert.doesNotMatch(printed, /[\u001b\u0007\u202e]|\r(?!\n)/, 'no control character reaches the terminal raw');

    // SIGTERM: the session closes its stream while the door still serves, so the watcher reads capsule-closed.
    await door.stop('SIGTERM');
    const result = await watcher.exited;
    assert.equal(result.code, 0);
    assert.equal(result.stderr, '[murmur] capsule closed\n');
  });
});

describe('mur watch when the connection is lost', () => {
  const doors: DoorProcess[] = [];
  const watchers: MurProcess[] = [];
  after(async () => {
    for (const w of watchers) w.kill('SIGKILL');
    await Promise.all(doors.map((d) => d.stop('SIGKILL')));
  });

  test('a door killed with SIGKILL: exit 1 with E-IO-003 naming the last event id; statuses labelled for a threaded capsule', async () => {
    const door = await runDoor(makeCapsule(manifest({ name: 'threaded', lifecycle: ['conversation: threaded'] }), SCRIPT));
    doors.push(door);
    const answer = await send(door.url, 'say one', { contextId: 'ctx-thread-1' });
    const task = taskOf(answer);
    const lastId = (await replayedIds(door.url)).at(-1);
    assert.ok(lastId !== undefined);

    const watcher = spawnMur(['watch', door.sessionId.slice(0, 20)], door.home);
    watchers.push(watcher);
    await watcher.waitFor(new RegExp(`${task} in ctx-thread-1  completed`), 'the threaded status line');
    assert.match(watcher.stdout(), new RegExp(`^${TIME}  ${task} in ctx-thread-1  working  inference turn 1$`, 'm'));
    await door.stop('SIGKILL');
    const result = await watcher.exited;
    assert.equal(result.code, 1);
    assert.equal(
      result.stderr,
      `mur: E-IO-003: connection to ${door.sessionId} lost after event id ${lastId}\nthe capsule may still be running; run mur watch again to reattach\n`,
    );
  });

  test('lost before any event: the door dies while the buffer is empty', async () => {
    const door = await runDoor(makeCapsule(manifest({ name: 'empty' }), SCRIPT));
    doors.push(door);
    const watcher = spawnMur(['watch', door.url], door.home);
    watchers.push(watcher);
    await until(() => (watchStreamsOpened(door.recordsDir) > 0 ? true : undefined), 'the watch stream to open');
    await door.stop('SIGKILL');
    const result = await watcher.exited;
    assert.equal(result.code, 1);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, new RegExp(`^mur: E-IO-003: connection to ${door.sessionId} lost before any event\\nthe capsule may still be running`));
  });
});

describe('mur watch against a scripted door: gap, lagged, unknown frames, headers', () => {
  const home = tempDir('home');
  const STREAM_URI = 'https://docs.murmur.nexus/reference/streaming-protocol/#murmur-stream-v1';
  let fake: TinyServer;
  before(async () => {
    // A v1.0 WatchSession whose replay could not reach back (gap) and whose connection fell behind (lagged), with frames
    // and keys mur watch does not know, ending without capsule-closed. The v1.0 door writes gap only for a request
    // with Last-Event-ID, which mur watch never sends, so a scripted door is the one way to show the warning.
    fake = await tinyServer((_req, res, body) => {
      const id = JSON.parse(body).id;
      const event = (result: unknown, eventId?: string) =>
        `${eventId === undefined ? '' : `id: ${eventId}\n`}data: ${JSON.stringify({ jsonrpc: '2.0', id, result })}\n\n`;
      const frame = (f: Record<string, unknown>) => ({
        message: { messageId: 'msg_x', role: 'ROLE_AGENT', parts: [{ text: f.frame }], metadata: { [STREAM_URI]: f } },
      });
      const carrier = (f: Record<string, unknown>) => ({
        statusUpdate: {
          taskId: 'tsk_f',
          contextId: 'ctx_f',
          status: { state: 'TASK_STATE_WORKING', timestamp: '2026-10-13T09:00:00.000Z' },
          metadata: { [STREAM_URI]: f },
        },
      });
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(event(frame({ frame: 'connection-ack', role: 'observer', conversationMode: 'stateless', brandNew: true })));
      res.write(event(frame({ frame: 'gap', firstAvailableId: '37' })));
      res.write(':heartbeat\n\n');
      res.write(
        event(
          {
            statusUpdate: {
              taskId: 'tsk_f',
              contextId: 'ctx_f',
              status: {
                state: 'TASK_STATE_WORKING',
                message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'inference turn 2' }] },
                timestamp: '2026-10-13T09:00:00.000Z',
                mood: 'x',
              },
              unknownKey: { deep: 1 },
            },
          },
          '37',
        ),
      );
      res.write(event(carrier({ frame: 'quota', remaining: 3 }), '38'));
      res.write(event({ somethingNew: { a: 1 } }, '39'));
      res.write(event(frame({ frame: 'lagged', dropped: 12 })));
      res.write(event(carrier({ frame: 'text', text: 'half a li', final: false }), '40'));
      res.write(event(carrier({ frame: 'thinking', text: 'hidden', final: false }), '41'));
      res.end();
    });
  });
  after(() => fake.close());

  test('warns on gap and lagged, ignores what it does not know, and reports where the stream stopped', async () => {
    const result = await runMur(['watch', fake.url], home);
    assert.equal(result.code, 1);
    assert.match(result.stdout, /^\d\d:\d\d:\d\d {2}tsk_f {2}working {2}inference turn 2\nhalf a li\n$/);
    assert.equal(
      result.stderr,
      [
        'mur: warning: events before id 37 are gone: the replay buffer starts at id 37',
        'mur: warning: this connection fell behind and lost 12 events',
        `mur: E-IO-003: connection to ${fake.url} lost after event id 41`,
        'the capsule may still be running; run mur watch again to reattach',
        '',
      ].join('\n'),
    );
    const request = fake.requests[0];
    assert.equal(request.method, 'POST');
    assert.equal(request.headers['a2a-version'], '1.0');
    assert.equal(request.headers['last-event-id'], undefined, 'no Last-Event-ID: the v1.0 door replays its whole buffer without one');
    assert.equal(JSON.parse(request.body).method, 'murmur.WatchSession');
  });

  test('a door that answers nothing, and bad arguments', async () => {
    const none = await runMur(['watch', 'http://127.0.0.1:9'], home);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /^mur: cannot watch http:\/\/127\.0\.0\.1:9: no answer from http:\/\/127\.0\.0\.1:9/);
    const usage = await runMur(['watch', 'a', 'b'], home);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /usage: mur watch/);
    const unknown = await runMur(['watch', 'ses_nope'], home);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /no running session is ses_nope/);
  });
});

describe('mur watch on an authenticated door', () => {
  let door: DoorProcess;
  before(async () => {
    door = await runDoor(
      makeCapsule(
        manifest({
          name: 'guarded',
          extra: ['network:', '  authentication:', '    scheme: bearer', '    credentials:', '      reader:', '        scopes: [GetTask]'],
        }),
        SCRIPT,
      ),
    );
  });
  after(() => door.stop('SIGKILL'));

  test('uses the session operator token from tokens.json; a wrong --token or a token without the scope is refused in plain words', async () => {
    const watcher = spawnMur(['watch'], door.home);
    await until(() => (watchStreamsOpened(door.recordsDir) > 0 ? true : undefined), 'the watch stream to open');
    const bad = await runMur(['watch', '--token', 'mur_not_a_token'], door.home);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /^mur: cannot watch ses_\w+: the door at http:\S+ refused the token \(401 invalid_token\)/);
    const tokens = JSON.parse((await runMur(['token', '--json'], door.home)).stdout).tokens as { credential: string; token: string }[];
    const reader = tokens.find((t) => t.credential === 'reader')!.token;
    const scoped = await runMur(['watch', '--token', reader], door.home);
    assert.equal(scoped.code, 1);
    assert.match(scoped.stderr, /the token may not do this \(403 insufficient_scope\): credential 'reader' does not reach murmur\.WatchSession/);
    await door.stop('SIGTERM');
    const result = await watcher.exited;
    assert.equal(result.code, 0);
    assert.equal(result.stderr, '[murmur] capsule closed\n');
  });
});
