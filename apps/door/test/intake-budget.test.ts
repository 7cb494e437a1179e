/**
 * Concurrent intake is bounded by bytes (issue 16): a body that does not fit in the intake budget waits, unread, for
 * earlier ones to be taken in; small bodies have a budget of their own, so they never queue behind a large one, and
 * wait only when 8 MiB of small bodies are being read at once. The semaphore's own tests are src/rpc/intake-budget.spec.ts.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type DoorProcess, makeCapsule, manifestYaml, runDoor } from './support/door-process.js';
import { rpc } from './support/rpc.js';

/** docs/reliability.md: "bodies up to 64 KiB in a budget of their own, 8 MiB". */
const SMALL_BODY_BYTES = 64 * 1024;
const SMALL_BUDGET_BYTES = 8 * 1024 * 1024;

/** A raw request whose body arrives in two parts, the second when `finish` is called; resolves with the answer text. */
function splitRequest(url: string, body: string, firstBytes: number): { finish: () => void; destroy: () => void; answer: Promise<string> } {
  const target = new URL(url);
  const socket = net.connect(Number(target.port), target.hostname);
  socket.on('error', () => undefined);
  socket.write(
    `POST / HTTP/1.1\r\nHost: ${target.host}\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
  );
  socket.write(body.slice(0, firstBytes));
  let text = '';
  socket.setEncoding('utf8');
  const answer = new Promise<string>((resolve) => {
    socket.on('data', (chunk: string) => {
      text += chunk;
      if (/\r\n\r\n[\s\S]*\}$/.test(text)) resolve(text);
    });
    socket.on('close', () => resolve(text));
  });
  return { finish: () => socket.write(body.slice(firstBytes)), destroy: () => socket.destroy(), answer };
}

/** A SendMessage body of exactly `bytes` bytes (ASCII). */
function messageBody(id: string, bytes: number): string {
  const head = `{"jsonrpc":"2.0","id":"${id}","method":"SendMessage","params":{"configuration":{"returnImmediately":true},"message":{"messageId":"${id}","role":"ROLE_USER","parts":[{"text":"`;
  const tail = '"}]}}}';
  return head + 'q'.repeat(bytes - head.length - tail.length) + tail;
}

describe('a door whose intake budget is full', () => {
  let door: DoorProcess;
  before(async () => {
    // Images of 1,000 bytes: the body limit is 8 MiB and the intake budget 16 MiB.
    door = await runDoor(
      makeCapsule(
        manifestYaml({ name: 'intake', acceptance: 'queue', extra: 'context:\n  images:\n    max_bytes: 1000\n    max_per_turn: 1' }),
        'default:\n  turns:\n    - answer: ok\n',
      ),
    );
  });
  after(() => door.stop());

  test('a large body waits until earlier ones are taken in; a small one is answered meanwhile', { timeout: 60_000 }, async () => {
    // Two bodies of 8,000,000 bytes, half sent: they hold 16,000,000 of the 16,777,216 bytes while they are read.
    const first = splitRequest(door.url, messageBody('big-1', 8_000_000), 4_000_000);
    const second = splitRequest(door.url, messageBody('big-2', 8_000_000), 4_000_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    let thirdAnswered = false;
    const third = rpc(door.url, 'SendMessage', {
      message: { messageId: 'mid-3', role: 'ROLE_USER', parts: [{ text: 'm'.repeat(1_000_000) }] },
      configuration: { returnImmediately: true },
    }).then((a) => {
      thirdAnswered = true;
      return a;
    });
    const small = await rpc(door.url, 'GetTask', { id: 'tsk_00000000000000000000000000000000' });
    assert.equal(small.json.error.code, -32001, 'a small body is taken in at once');
    await new Promise((resolve) => setTimeout(resolve, 700));
    assert.equal(thirdAnswered, false, 'the third body waits while the budget is full');
    first.finish();
    assert.match(await first.answer, /"result":\{"task"/);
    const answered = await third;
    assert.ok(answered.json.result.task.id, 'taken in once the first body was');
    second.destroy();
    const after = await rpc(door.url, 'SendMessage', {
      message: { messageId: 'after-4', role: 'ROLE_USER', parts: [{ text: 'a'.repeat(7_000_000) }] },
      configuration: { returnImmediately: true },
    });
    assert.ok(after.json.result.task.id, 'a client that went away mid-body gave its reservation back');
    const log = readFileSync(path.join(door.recordsDir, 'logs', 'door.log'), 'utf8');
    assert.match(log, /request body waits for the intake budget/);
  });
});

describe('a door whose small-body budget is full', () => {
  let door: DoorProcess;
  before(async () => {
    door = await runDoor(makeCapsule(manifestYaml({ name: 'intake-small', acceptance: 'queue' }), 'default:\n  turns:\n    - answer: ok\n'));
  });
  after(() => door.stop());

  test('small bodies are bounded by bytes too: past 8 MiB being read at once the next waits, unread', { timeout: 60_000 }, async () => {
    // Bodies of the largest small size, each half sent: enough of them to hold the whole small budget.
    const count = Math.floor(SMALL_BUDGET_BYTES / SMALL_BODY_BYTES);
    const held = Array.from({ length: count }, (_, i) => splitRequest(door.url, messageBody(`small-${i}`, SMALL_BODY_BYTES), 100));
    await new Promise((resolve) => setTimeout(resolve, 500));
    let answered = false;
    const waiting = rpc(door.url, 'GetTask', { id: 'tsk_00000000000000000000000000000000' }).then((a) => {
      answered = true;
      return a;
    });
    await new Promise((resolve) => setTimeout(resolve, 700));
    assert.equal(answered, false, 'a small body waits while the small budget is full');
    held[0].finish();
    assert.match(await held[0].answer, /"result":\{"task"/);
    assert.equal((await waiting).json.error.code, -32001, 'taken in once a small body was');
    for (const request of held.slice(1)) request.destroy();
    const after = await rpc(door.url, 'GetTask', { id: 'tsk_00000000000000000000000000000000' });
    assert.equal(after.json.error.code, -32001, 'the reservations of clients that went away are given back');
  });
});
