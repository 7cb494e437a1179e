import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { BoundedLines, InitChannel, MAX_STATUS_LINE_BYTES } from './init-channel.js';

test('lines are split across chunks, and a line past the bound breaks the reader once, holding nothing more', () => {
  const lines: string[] = [];
  let overflows = 0;
  const reader = new BoundedLines(
    16,
    (line) => lines.push(line),
    () => (overflows += 1),
  );
  reader.push(Buffer.from('sta'));
  reader.push(Buffer.from('rted\nexit'));
  reader.push(Buffer.from(' 7\nhold'));
  assert.deepEqual(lines, ['started', 'exit 7']);
  reader.push(Buffer.from('ers 1234567890123'));
  assert.equal(overflows, 1);
  reader.push(Buffer.from('\nexit 0\n'));
  assert.deepEqual(lines, ['started', 'exit 7'], 'nothing is read after the overflow');
  assert.equal(overflows, 1);
});

test('megabytes without a newline: bounded memory, linear work, one overflow', () => {
  let overflows = 0;
  const reader = new BoundedLines(
    MAX_STATUS_LINE_BYTES,
    () => assert.fail('no line'),
    () => (overflows += 1),
  );
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  const started = performance.now();
  for (let i = 0; i < 16 * 32; i++) reader.push(chunk); // 32 MiB
  assert.equal(overflows, 1);
  assert.ok(performance.now() - started < 1000, 'each chunk after the overflow is dropped at once');
});

test("the init's exit, with the signal that ended the command; holders answered in order; a closed channel settles both", async () => {
  const socket = new PassThrough();
  const written: string[] = [];
  const duplex = Object.assign(socket, { write: (text: string) => written.push(text) > 0 });
  const channel = new InitChannel(duplex);
  const holders = channel.holders();
  socket.emit('data', Buffer.from('started\nholders 7:sleep 9:a\\x20b +2\nexit 153 signal 25\n'));
  assert.deepEqual(await holders, [
    { pid: 7, comm: 'sleep' },
    { pid: 9, comm: 'a\\x20b' },
  ]);
  assert.deepEqual(await channel.exit, { code: 153, signal: 25 });
  channel.stop();
  assert.deepEqual(written, ['holders\n', 'stop\n']);
  const second = new InitChannel(Object.assign(new PassThrough(), { write: () => true }));
  const waiting = second.holders();
  (second as unknown as { socket: PassThrough }).socket.emit('close');
  assert.deepEqual(await waiting, []);
  assert.equal(await second.exit, null, 'no exit line: the caller falls back on the process');
});

test('a line the init never writes (a forged or broken one) is ignored; an over-long one closes the channel', async () => {
  const socket = new PassThrough();
  const channel = new InitChannel(Object.assign(socket, { write: () => true }));
  socket.emit('data', Buffer.from('exit 0 and more\nexit -1\nexit 99999\n'));
  socket.emit('data', Buffer.alloc(MAX_STATUS_LINE_BYTES + 1, 0x61));
  assert.equal(await channel.exit, null);
  assert.equal(socket.destroyed, true);
});
