import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { boundedRequest, failureInWords, OutboundTimeout, withoutAddresses } from './outbound-request.js';

/** A server that takes connections and never answers: a door frozen with its socket open. */
async function silentServer(): Promise<{ server: Server; url: string }> {
  const server = createServer(() => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { server, url: `http://127.0.0.1:${port}/` };
}

test('a request that never answers ends at its own timeout, with an OutboundTimeout', async () => {
  const { server, url } = await silentServer();
  try {
    const started = Date.now();
    await assert.rejects(
      boundedRequest((signal) => fetch(url, { signal }), { timeoutMs: 200 }),
      (error) => error instanceof OutboundTimeout && error.name === 'TimeoutError' && error.timeoutMs === 200,
    );
    assert.ok(Date.now() - started < 1_000);
  } finally {
    server.close();
  }
});

test('a request whose promise ignores its signal still ends by the timer: the race, not the abort, bounds it', async () => {
  let aborted = false;
  const never = (signal: AbortSignal) =>
    new Promise<never>(() => {
      signal.addEventListener('abort', () => {
        aborted = true;
      });
    });
  await assert.rejects(boundedRequest(never, { timeoutMs: 50 }), OutboundTimeout);
  assert.ok(aborted, 'the request was aborted too');
});

test("the caller's signal ends the request with its reason, at once when it has already aborted", async () => {
  const caller = new AbortController();
  const pending = boundedRequest((signal) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('late')))), {
    timeoutMs: 10_000,
    signal: caller.signal,
  });
  caller.abort(new Error('the task ended'));
  await assert.rejects(pending, /the task ended/);
  let ran = false;
  await assert.rejects(
    boundedRequest(
      async () => {
        ran = true;
      },
      { signal: caller.signal },
    ),
    /the task ended/,
  );
  assert.equal(ran, false);
  assert.equal(await boundedRequest(async () => 'answer', { timeoutMs: 1_000 }), 'answer');
});

test('with collections forced while it waits, a bounded fetch still ends at its timeout (AbortSignal.any would hang)', () => {
  const module = fileURLToPath(new URL('./outbound-request.js', import.meta.url));
  const script = `
    const net = await import('node:net');
    const { boundedRequest } = await import(${JSON.stringify(module)});
    const server = net.createServer(() => {}).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const url = 'http://127.0.0.1:' + server.address().port + '/';
    const collect = setInterval(() => globalThis.gc(), 20);
    const ended = [];
    for (let i = 0; i < 3; i++) {
      const started = Date.now();
      await boundedRequest((signal) => fetch(url, { signal }), { timeoutMs: 300, signal: new AbortController().signal }).catch((e) => ended.push({ name: e.name, ms: Date.now() - started }));
    }
    clearInterval(collect);
    server.close();
    process.stdout.write(JSON.stringify(ended));
    process.exit(0);
  `;
  const out = JSON.parse(execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 })) as {
    name: string;
    ms: number;
  }[];
  assert.equal(out.length, 3);
  for (const e of out) {
    assert.equal(e.name, 'TimeoutError');
    assert.ok(e.ms < 1_500, `ended after ${e.ms} ms`);
  }
});

test('a failure in words names no address: the refused connection of a real fetch, nested causes, timeouts', async () => {
  const { server, url } = await silentServer();
  server.close();
  const refused = await fetch(url).catch((error: unknown) => error);
  assert.match(String((refused as Error).cause), /ECONNREFUSED 127\.0\.0\.1/, 'the raw error carries the address');
  assert.equal(failureInWords(refused), 'the connection was refused');
  assert.equal(failureInWords(new Error('SendMessage: no answer from http://127.0.0.1:9/', { cause: refused })), 'the connection was refused');
  assert.equal(failureInWords(new OutboundTimeout(5_000)), 'it did not answer within 5 s');
  assert.equal(failureInWords(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), 'it did not answer in time');
  assert.equal(failureInWords(Object.assign(new Error('x'), { code: 'ECONNRESET' })), 'the connection was reset');
  assert.equal(failureInWords(new Error('fetch failed to http://127.0.0.1:1/')), 'no answer came');
});

test('withoutAddresses withholds URLs and mur_ tokens and keeps the rest', () => {
  assert.equal(withoutAddresses('Task not found'), 'Task not found');
  assert.equal(withoutAddresses('no answer from http://127.0.0.1:4545/: bad token mur_AbC-9_x'), 'no answer from <withheld>: bad token <withheld>');
});
