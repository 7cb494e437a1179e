import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import net from 'node:net';
import { test } from 'node:test';
import { commandDestinations } from '../../egress/command-destinations.js';
import { CommandEgress, MAX_EGRESS_CONNECTIONS } from './command-egress.js';

test('a command reaches host:port entries only; localhost and 127.0.0.1 name each other; a bare host or :* is the runtime tools alone', () => {
  assert.deepEqual(
    commandDestinations([
      'localhost',
      'localhost:*',
      '127.0.0.1:8080',
      'LOCALHOST:8080',
      'api.example.com:443',
      'api.example.com',
      'bad host:1',
      'x:0',
      'x:65536',
      ':80',
      '[::1]:80',
    ]),
    [
      { host: 'localhost', port: 8080 },
      { host: 'api.example.com', port: 443 },
    ],
  );
});

test("the door carries a connection on a destination's socket to the destination; named hosts get their own loopback address", async () => {
  const target = net.createServer((s) => s.end('from-target\n'));
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  const port = (target.address() as net.AddressInfo).port;
  const egress = await CommandEgress.open(commandDestinations([`localhost:${port}`, 'api.example.test:443']), null);
  try {
    assert.equal(readFileSync(`${egress.dir}/hosts`, 'utf8'), '127.0.0.1 localhost\n::1 localhost\n127.0.0.2 api.example.test\n');
    assert.deepEqual(egress.relays, [
      `127.0.0.1:${port}=/run/murmur/egress/0.sock`,
      `::1:${port}=/run/murmur/egress/0.sock`,
      '127.0.0.2:443=/run/murmur/egress/1.sock',
    ]);
    assert.deepEqual(egress.binds('/dev/shm/egress'), [
      { source: '/dev/shm/egress/hosts', target: '/etc/hosts', writable: false },
      { source: '/dev/shm/egress', target: '/run/murmur/egress', writable: false },
    ]);
    assert.equal(statSync(egress.dir).mode & 0o777, 0o700, 'the folder says who may reach the sockets');
    const reply = await new Promise<string>((resolve, reject) => {
      let text = '';
      net
        .connect(`${egress.dir}/0.sock`)
        .on('data', (d) => (text += d))
        .on('close', () => resolve(text))
        .on('error', reject);
    });
    assert.equal(reply, 'from-target\n');
  } finally {
    await egress.close();
    target.close();
  }
});

test(`an egress carries ${MAX_EGRESS_CONNECTIONS} connections at once over all its destinations, refuses more as they come, and ends those it holds when it closes`, async () => {
  const held = new Set<net.Socket>();
  const targets = [0, 1].map(() =>
    net.createServer((s) => {
      held.add(s);
      s.on('close', () => held.delete(s));
    }),
  );
  const ports = await Promise.all(
    targets.map((t) => new Promise<number>((resolve) => t.listen(0, '127.0.0.1', () => resolve((t.address() as net.AddressInfo).port)))),
  );
  const egress = await CommandEgress.open(commandDestinations(ports.map((p) => `localhost:${p}`)), null);
  const open = async (socket: string) =>
    new Promise<net.Socket>((resolve, reject) => {
      const c = net
        .connect(socket)
        .on('connect', () => resolve(c))
        .on('error', reject);
    });
  try {
    const first = await Promise.all(Array.from({ length: MAX_EGRESS_CONNECTIONS }, (_, i) => open(`${egress.dir}/${i % 2}.sock`)));
    await waitUntil(() => held.size === MAX_EGRESS_CONNECTIONS, 'the bound carried');
    const refused = await open(`${egress.dir}/1.sock`);
    let refusedClosed = false;
    refused.on('close', () => (refusedClosed = true)).resume();
    await waitUntil(() => refusedClosed, 'the connection past the bound closed');
    assert.equal(held.size, MAX_EGRESS_CONNECTIONS, 'one past the bound reached no destination');
    first[0].destroy();
    await waitUntil(() => held.size === MAX_EGRESS_CONNECTIONS - 1, 'one ended');
    await open(`${egress.dir}/0.sock`);
    await waitUntil(() => held.size === MAX_EGRESS_CONNECTIONS, 'a place freed is taken again');
    await egress.close();
    await waitUntil(() => held.size === 0, 'the egress closed, every carried connection ended');
  } finally {
    await egress.close();
    for (const t of targets) t.close();
  }
});

async function waitUntil(done: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(done(), `not met within 4 s: ${what}`);
}
