/**
 * The operator plane on real doors (docs/planes.md): listings, streamed downloads with HEAD, Range, validators,
 * content type and disposition; the traversal corpus, every target refused with the one byte-identical answer and
 * none answered with a file's bytes; the method check; the token and the scope before the path.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, readlinkSync, realpathSync, truncateSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { authBlock, bearer, tokensOf } from './support/auth.js';
import { type DoorProcess, runDoor } from './support/door-process.js';
import { type BytesAnswer, fetchBytes, filesCapsule, HELLO, SECRET_MARKER } from './support/files-fixture.js';
import { traversalCorpus } from './support/traversal-corpus.js';

const REFUSAL = '{"error":"file_not_found","message":"nothing is served at this path of the operator plane"}';

let door: DoorProcess;
let secure: DoorProcess;
let big: Buffer;
let root: string;

before(async () => {
  const open = filesCapsule('files-plane');
  big = open.big;
  root = open.root;
  [door, secure] = await Promise.all([
    runDoor(open.dir),
    runDoor(filesCapsule('files-secure', authBlock({ files: ['resources/files'], watcher: ['murmur.WatchSession'] })).dir),
  ]);
});
after(async () => {
  await Promise.all([door?.stop(), secure?.stop()]);
});

function assertRefused(answer: BytesAnswer, what: string): void {
  const text = answer.body.toString('utf8');
  assert.ok(!text.includes(SECRET_MARKER) && !text.includes('root:x:0:0') && !text.includes('version: 0.1.0'), `${what} leaked bytes: ${text.slice(0, 200)}`);
  assert.equal(answer.status, 404, `${what}: ${answer.status} ${text.slice(0, 200)}`);
  assert.equal(text, REFUSAL, what);
  assert.equal(answer.headers['content-type'], 'application/json', what);
}

describe('the traversal corpus', () => {
  test('at least 200 targets, every one refused with the one answer, none with a file’s bytes', async () => {
    const corpus = traversalCorpus();
    assert.ok(corpus.length >= 200, `only ${corpus.length} targets`);
    for (let i = 0; i < corpus.length; i += 16) {
      const batch = corpus.slice(i, i + 16);
      const answers = await Promise.all(batch.map((target) => fetchBytes(door.url, target)));
      for (const [j, answer] of answers.entries()) assertRefused(answer, `GET ${batch[j]}`);
    }
  });

  test('HEAD of an escape is refused the same way, with no body', async () => {
    for (const target of traversalCorpus().slice(0, 40)) {
      const answer = await fetchBytes(door.url, target, { method: 'HEAD' });
      assert.equal(answer.status, 404, target);
      assert.equal(answer.body.length, 0, target);
    }
  });

  test('links that stay inside the root are served; the refused ones are not listed', async () => {
    assert.equal((await fetchBytes(door.url, '/resources/files/link-in')).body.toString(), HELLO);
    assert.equal((await fetchBytes(door.url, '/resources/files/link-dir-in/inner.md')).body.toString(), '# inner\n');
    // Out through a link to the parent and back in: the walk never leaves the root, so it is refused at the way out,
    // before anything outside is looked at (docs/sandbox.md, "The door's own file work").
    const outAndBack = await fetchBytes(door.url, '/resources/files/link-parent/exported/hello.txt');
    assert.equal(outAndBack.status, 404);
    assert.equal(outAndBack.body.toString(), '{"error":"file_not_found","message":"nothing is served at this path of the operator plane"}');
    const listing = JSON.parse((await fetchBytes(door.url, '/resources/files/')).body.toString()) as { entries: { name: string }[] };
    const names = listing.entries.map((e) => e.name);
    for (const refused of ['link-out', 'link-abs-out', 'link-etc', 'chain-out', 'link-dir-out', 'link-parent', 'link-slash', 'dangling', 'fifo', '%41.txt']) {
      assert.ok(!names.includes(refused), `${refused} is listed`);
    }
    assert.ok(names.includes('link-in') && names.includes('link-dir-in'));
  });
});

describe('listings', () => {
  test('the root, with and without the slash, and a folder: name, type, size, modified; sorted', async () => {
    for (const target of ['/resources/files', '/resources/files/', '/resources/files/?x=1']) {
      const answer = await fetchBytes(door.url, target);
      assert.equal(answer.status, 200, target);
      assert.equal(answer.headers['content-type'], 'application/json');
      assert.equal(answer.headers['cache-control'], 'no-store');
      const listing = JSON.parse(answer.body.toString());
      assert.equal(listing.path, '');
      assert.equal(listing.truncated, false);
      const hello = listing.entries.find((e: { name: string }) => e.name === 'hello.txt');
      assert.deepEqual(Object.keys(hello), ['name', 'type', 'size', 'modified']);
      assert.equal(hello.type, 'file');
      assert.equal(hello.size, Buffer.byteLength(HELLO));
      assert.match(hello.modified, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      const names = listing.entries.map((e: { name: string }) => e.name);
      assert.deepEqual(names, [...names].sort());
      assert.deepEqual(
        listing.entries.find((e: { name: string }) => e.name === 'sub'),
        { ...listing.entries.find((e: { name: string }) => e.name === 'sub'), type: 'folder', size: 0 },
      );
    }
    const sub = JSON.parse((await fetchBytes(door.url, '/resources/files/sub/')).body.toString());
    assert.equal(sub.path, 'sub/');
    assert.deepEqual(
      sub.entries.map((e: { name: string; type: string }) => [e.name, e.type]),
      [
        ['deeper', 'folder'],
        ['inner.md', 'file'],
      ],
    );
    const deeper = JSON.parse((await fetchBytes(door.url, '/resources/files/sub/deeper/')).body.toString());
    assert.equal(deeper.path, 'sub/deeper/');
    assert.deepEqual(JSON.parse((await fetchBytes(door.url, '/resources/files/empty-folder/')).body.toString()).entries, []);
  });
});

describe('downloads', () => {
  test('200 with the bytes, length, type, disposition and validators', async () => {
    const answer = await fetchBytes(door.url, '/resources/files/hello.txt');
    assert.equal(answer.status, 200);
    assert.equal(answer.body.toString(), HELLO);
    assert.equal(answer.headers['content-length'], String(Buffer.byteLength(HELLO)));
    assert.equal(answer.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(answer.headers['content-disposition'], `attachment; filename="hello.txt"; filename*=UTF-8''hello.txt`);
    assert.equal(answer.headers['accept-ranges'], 'bytes');
    assert.equal(answer.headers['x-content-type-options'], 'nosniff');
    assert.match(String(answer.headers.etag), /^"[0-9a-f]+-[0-9a-f]+-[0-9a-f]+"$/);
    assert.ok(!Number.isNaN(Date.parse(String(answer.headers['last-modified']))));
    const json = await fetchBytes(door.url, '/resources/files/sub/deeper/leaf.json');
    assert.equal(json.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal((await fetchBytes(door.url, '/resources/files/big.bin')).headers['content-type'], 'application/octet-stream');
  });

  test('a unicode name: an ASCII fallback and the RFC 8187 form', async () => {
    const answer = await fetchBytes(door.url, `/resources/files/${encodeURIComponent('with space é.txt')}`);
    assert.equal(answer.status, 200);
    assert.equal(answer.body.toString(), 'unicode name\n');
    assert.equal(answer.headers['content-disposition'], `attachment; filename="with space _.txt"; filename*=UTF-8''with%20space%20%C3%A9.txt`);
  });

  test('a 1 MiB file arrives whole and exact', async () => {
    const answer = await fetchBytes(door.url, '/resources/files/big.bin');
    assert.equal(answer.status, 200);
    assert.ok(answer.body.equals(big));
  });

  test('an empty file: 200, content-length 0', async () => {
    const answer = await fetchBytes(door.url, '/resources/files/empty.bin');
    assert.equal(answer.status, 200);
    assert.equal(answer.headers['content-length'], '0');
    assert.equal(answer.body.length, 0);
  });

  test('HEAD: the GET’s status and headers, no body', async () => {
    const get = await fetchBytes(door.url, '/resources/files/big.bin');
    const head = await fetchBytes(door.url, '/resources/files/big.bin', { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.body.length, 0);
    for (const name of ['content-length', 'content-type', 'content-disposition', 'etag', 'last-modified', 'accept-ranges']) {
      assert.equal(head.headers[name], get.headers[name], name);
    }
    const list = await fetchBytes(door.url, '/resources/files/', { method: 'HEAD' });
    assert.equal(list.status, 200);
    assert.equal(list.body.length, 0);
  });

  test('Range: a-b, a-, -n answer 206 with exactly those bytes; the end is cut to the file', async () => {
    const cases: [string, number, number][] = [
      ['bytes=0-0', 0, 0],
      ['bytes=10-99', 10, 99],
      ['bytes=1048000-', 1048000, big.length - 1],
      ['bytes=-17', big.length - 17, big.length - 1],
      ['bytes=5-999999999', 5, big.length - 1],
      ['bytes=-9999999', 0, big.length - 1],
    ];
    for (const [range, start, end] of cases) {
      const answer = await fetchBytes(door.url, '/resources/files/big.bin', { headers: { range } });
      assert.equal(answer.status, 206, range);
      assert.equal(answer.headers['content-range'], `bytes ${start}-${end}/${big.length}`, range);
      assert.equal(answer.headers['content-length'], String(end - start + 1), range);
      assert.ok(answer.body.equals(big.subarray(start, end + 1)), range);
    }
  });

  test('Range past the end: 416 with bytes */size; several ranges or bad syntax: the whole file', async () => {
    for (const range of [`bytes=${big.length}-`, `bytes=${big.length + 5}-${big.length + 9}`, 'bytes=-0']) {
      const answer = await fetchBytes(door.url, '/resources/files/big.bin', { headers: { range } });
      assert.equal(answer.status, 416, range);
      assert.equal(answer.headers['content-range'], `bytes */${big.length}`, range);
      assert.equal(JSON.parse(answer.body.toString()).error, 'range_not_satisfiable');
    }
    assert.equal((await fetchBytes(door.url, '/resources/files/empty.bin', { headers: { range: 'bytes=0-' } })).status, 416);
    for (const range of ['bytes=0-1,5-6', 'bytes=5-1', 'items=0-1', 'bytes=x-y', 'bytes=-']) {
      const answer = await fetchBytes(door.url, '/resources/files/big.bin', { headers: { range } });
      assert.equal(answer.status, 200, range);
      assert.equal(answer.body.length, big.length, range);
    }
  });

  test('If-Range: the current ETag keeps the range, another answers the whole file', async () => {
    const { etag } = (await fetchBytes(door.url, '/resources/files/big.bin', { method: 'HEAD' })).headers;
    assert.equal((await fetchBytes(door.url, '/resources/files/big.bin', { headers: { range: 'bytes=0-9', 'if-range': String(etag) } })).status, 206);
    assert.equal((await fetchBytes(door.url, '/resources/files/big.bin', { headers: { range: 'bytes=0-9', 'if-range': '"other"' } })).status, 200);
  });

  test('If-None-Match and If-Modified-Since: 304 with the validators and no body', async () => {
    const first = await fetchBytes(door.url, '/resources/files/hello.txt');
    const etag = String(first.headers.etag);
    for (const inm of [etag, `W/${etag}`, `"nope", ${etag}`, '*']) {
      const answer = await fetchBytes(door.url, '/resources/files/hello.txt', { headers: { 'if-none-match': inm } });
      assert.equal(answer.status, 304, inm);
      assert.equal(answer.body.length, 0, inm);
      assert.equal(answer.headers.etag, etag, inm);
    }
    assert.equal((await fetchBytes(door.url, '/resources/files/hello.txt', { headers: { 'if-none-match': '"nope"' } })).status, 200);
    const lastModified = String(first.headers['last-modified']);
    assert.equal((await fetchBytes(door.url, '/resources/files/hello.txt', { headers: { 'if-modified-since': lastModified } })).status, 304);
    assert.equal((await fetchBytes(door.url, '/resources/files/hello.txt', { headers: { 'if-modified-since': 'Thu, 01 Jan 1970 00:00:00 GMT' } })).status, 200);
  });
});

describe('downloads at the edges', () => {
  test('HEAD with a Range: the 206 or 416 a GET would get, its headers and no body', async () => {
    const head = await fetchBytes(door.url, '/resources/files/big.bin', { method: 'HEAD', headers: { range: 'bytes=-10' } });
    assert.equal(head.status, 206);
    assert.equal(head.headers['content-range'], `bytes ${big.length - 10}-${big.length - 1}/${big.length}`);
    assert.equal(head.headers['content-length'], '10');
    assert.equal(head.body.length, 0);
    const past = await fetchBytes(door.url, '/resources/files/big.bin', { method: 'HEAD', headers: { range: `bytes=${big.length}-` } });
    assert.equal(past.status, 416);
    assert.equal(past.headers['content-range'], `bytes */${big.length}`);
    assert.equal(past.body.length, 0);
  });

  test('a suffix range longer than the file, and one byte at each end', async () => {
    for (const [range, start, end] of [
      ['bytes=-1', big.length - 1, big.length - 1],
      [`bytes=${big.length - 1}-`, big.length - 1, big.length - 1],
      ['bytes=0-0', 0, 0],
    ] as const) {
      const answer = await fetchBytes(door.url, '/resources/files/big.bin', { headers: { range } });
      assert.equal(answer.status, 206, range);
      assert.equal(answer.headers['content-range'], `bytes ${start}-${end}/${big.length}`, range);
      assert.ok(answer.body.equals(big.subarray(start, end + 1)), range);
    }
    const suffix = await fetchBytes(door.url, '/resources/files/hello.txt', { headers: { range: 'bytes=-1000' } });
    assert.equal(suffix.status, 206);
    assert.equal(suffix.headers['content-range'], `bytes 0-${Buffer.byteLength(HELLO) - 1}/${Buffer.byteLength(HELLO)}`);
    assert.equal(suffix.body.toString(), HELLO);
    // The empty file: any range, a suffix included, is unsatisfiable.
    const empty = await fetchBytes(door.url, '/resources/files/empty.bin', { headers: { range: 'bytes=-5' } });
    assert.equal(empty.status, 416);
    assert.equal(empty.headers['content-range'], 'bytes */0');
  });

  test('conditionals before the range: a matching If-None-Match answers 304 even with a Range; If-None-Match outranks If-Modified-Since', async () => {
    const { etag, 'last-modified': lastModified } = (await fetchBytes(door.url, '/resources/files/big.bin', { method: 'HEAD' })).headers;
    const withRange = await fetchBytes(door.url, '/resources/files/big.bin', { headers: { 'if-none-match': String(etag), range: 'bytes=0-9' } });
    assert.equal(withRange.status, 304);
    assert.equal(withRange.body.length, 0);
    assert.equal(withRange.headers['content-range'], undefined);
    // If-None-Match present and not matching: If-Modified-Since is not looked at (RFC 9110 §13.1.3).
    const both = await fetchBytes(door.url, '/resources/files/big.bin', { headers: { 'if-none-match': '"other"', 'if-modified-since': String(lastModified) } });
    assert.equal(both.status, 200);
    assert.equal(both.body.length, big.length);
    // A date that does not parse is no condition.
    assert.equal((await fetchBytes(door.url, '/resources/files/big.bin', { headers: { 'if-modified-since': 'yesterday' } })).status, 200);
    // HEAD is conditional too.
    assert.equal((await fetchBytes(door.url, '/resources/files/big.bin', { method: 'HEAD', headers: { 'if-none-match': String(etag) } })).status, 304);
  });

  test('a file that shrinks while it is sent: the connection is closed short of the content-length, never ended as if whole', async () => {
    const file = path.join(root, 'shrinking.bin');
    writeFileSync(file, '');
    truncateSync(file, 64 * 1024 * 1024);
    // Keep-alive: a body ended early but cleanly would leave this connection open, waiting for bytes that never come.
    const read = await pausedDownload(door.url, '/resources/files/shrinking.bin', () => truncateSync(file, 1024 * 1024));
    assert.equal(read.status, 200);
    assert.equal(read.contentLength, 64 * 1024 * 1024);
    assert.ok(read.closed, 'the connection stayed open');
    assert.ok(read.bodyBytes < read.contentLength, `${read.bodyBytes} bytes of ${read.contentLength}`);
  });

  test('a file that grows while it is sent: exactly the length announced, and the connection stays usable', async () => {
    const file = path.join(root, 'growing.bin');
    writeFileSync(file, '');
    truncateSync(file, 64 * 1024 * 1024);
    const read = await pausedDownload(door.url, '/resources/files/growing.bin', () => truncateSync(file, 96 * 1024 * 1024));
    assert.equal(read.status, 200);
    assert.equal(read.contentLength, 64 * 1024 * 1024);
    assert.equal(read.bodyBytes, read.contentLength);
    assert.equal(read.closed, false);
  });

  test('concurrent downloads of different files, whole and ranged, each arrives exact (the reused buffers never mix them)', async () => {
    const files = ['mix-a.bin', 'mix-b.bin'].map((name) => {
      const bytes = randomBytes(3 * 1024 * 1024 + 5);
      writeFileSync(path.join(root, name), bytes);
      return { name, bytes };
    });
    const asks = Array.from({ length: 10 }, (_, i) => ({ file: files[i % 2], range: i >= 8 ? ([12_345, 2_345_678] as const) : null }));
    const answers = await Promise.all(
      asks.map(({ file, range }) =>
        fetchBytes(door.url, `/resources/files/${file.name}`, range === null ? {} : { headers: { range: `bytes=${range[0]}-${range[1]}` } }),
      ),
    );
    for (const [i, answer] of answers.entries()) {
      const { file, range } = asks[i];
      const expected = range === null ? file.bytes : file.bytes.subarray(range[0], range[1] + 1);
      assert.equal(answer.status, range === null ? 200 : 206, `${i}`);
      assert.ok(answer.body.equals(expected), `download ${i} of ${file.name} differs`);
    }
  });

  test('clients that stop reading hold the door to one buffer each, not the file', async () => {
    const file = path.join(root, 'stalled.bin');
    writeFileSync(file, '');
    truncateSync(file, 64 * 1024 * 1024);
    const rssMiB = () => Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${door.pid}/status`, 'utf8'))?.[1]) / 1024;
    const before = rssMiB();
    const at = new URL(door.url);
    const sockets = await Promise.all(
      Array.from(
        { length: 8 },
        () =>
          new Promise<net.Socket>((resolve, reject) => {
            const socket = net.connect(Number(at.port), at.hostname, () =>
              socket.write(`GET /resources/files/stalled.bin HTTP/1.1\r\nhost: ${at.host}\r\n\r\n`),
            );
            socket.once('data', () => {
              socket.pause();
              resolve(socket);
            });
            socket.on('error', reject);
          }),
      ),
    );
    try {
      // Time for a door that read on regardless to have read the files whole (8 × 64 MiB).
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const growth = rssMiB() - before;
      assert.ok(growth < 32, `the door's RSS grew ${growth.toFixed(1)} MiB with 8 stalled downloads`);
    } finally {
      for (const socket of sockets) socket.destroy();
    }
  });

  test('a client that goes away mid-download: the door closes the file', async () => {
    const file = path.join(root, 'abandoned.bin');
    writeFileSync(file, '');
    truncateSync(file, 64 * 1024 * 1024);
    const real = realpathSync(file);
    const openOnIt = () =>
      readdirSync(`/proc/${door.pid}/fd`).filter((fd) => {
        try {
          return readlinkSync(`/proc/${door.pid}/fd/${fd}`) === real;
        } catch {
          return false;
        }
      }).length;
    const at = new URL(door.url);
    const sockets = await Promise.all(
      Array.from(
        { length: 4 },
        () =>
          new Promise<net.Socket>((resolve, reject) => {
            const socket = net.connect(Number(at.port), at.hostname, () =>
              socket.write(`GET /resources/files/abandoned.bin HTTP/1.1\r\nhost: ${at.host}\r\n\r\n`),
            );
            socket.once('data', () => {
              socket.pause();
              resolve(socket);
            });
            socket.on('error', reject);
          }),
      ),
    );
    assert.equal(openOnIt(), 4, 'four downloads under way hold the file open');
    for (const socket of sockets) socket.destroy();
    const deadline = Date.now() + 5_000;
    while (openOnIt() > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(openOnIt(), 0, 'the door still holds the file open');
  });
});

interface PausedDownload {
  status: number;
  contentLength: number;
  bodyBytes: number;
  /** Whether the door closed the (keep-alive) connection. */
  closed: boolean;
}

/**
 * A keep-alive GET on a bare socket that stops reading once the head has come (so the door is held by backpressure
 * partway through the body), calls `meanwhile`, then reads on until the body is complete or the door closes the
 * connection; gives up waiting 10 s after the last byte.
 */
function pausedDownload(url: string, target: string, meanwhile: () => void): Promise<PausedDownload> {
  const at = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(at.port), at.hostname);
    let head = '';
    let status = 0;
    let contentLength = -1;
    let bodyBytes = 0;
    let paused = false;
    let idle: NodeJS.Timeout | undefined;
    const settle = (closed: boolean) => {
      clearTimeout(idle);
      socket.destroy();
      resolve({ status, contentLength, bodyBytes, closed });
    };
    const wait = () => {
      clearTimeout(idle);
      idle = setTimeout(() => settle(false), 10_000);
    };
    socket.on('connect', () => socket.write(`GET ${target} HTTP/1.1\r\nhost: ${at.host}\r\n\r\n`));
    socket.on('data', (chunk: Buffer) => {
      if (contentLength < 0) {
        head += chunk.toString('latin1');
        const end = head.indexOf('\r\n\r\n');
        if (end < 0) return;
        status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
        contentLength = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1]);
        bodyBytes = Buffer.byteLength(head, 'latin1') - end - 4;
      } else {
        bodyBytes += chunk.length;
      }
      if (!paused) {
        paused = true;
        socket.pause();
        setTimeout(() => {
          meanwhile();
          socket.resume();
          wait();
        }, 300);
        return;
      }
      if (bodyBytes >= contentLength) {
        // The whole body: the door would now close a connection it means to close; give it a moment to show it.
        setTimeout(() => settle(socket.destroyed || socket.readableEnded), 300);
        return;
      }
      wait();
    });
    socket.on('end', () => settle(true));
    socket.on('close', () => settle(true));
    socket.on('error', reject);
  });
}

describe('methods', () => {
  test('anything but GET and HEAD: 405 with Allow, whatever the path', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
      for (const target of ['/resources/files/hello.txt', '/resources/files/', '/resources/files/../secret.txt']) {
        const answer = await fetchBytes(door.url, target, { method });
        assert.equal(answer.status, 405, `${method} ${target}`);
        assert.equal(answer.headers.allow, 'GET, HEAD');
        assert.equal(JSON.parse(answer.body.toString()).error, 'method_not_allowed');
      }
    }
  });
});

describe('on an authenticated door: the token, then the scope, then the path', () => {
  test('no token 401 and a token without resources/files 403, on files and escapes alike; the files credential is served', async () => {
    const tokens = tokensOf(secure);
    for (const target of ['/resources/files/', '/resources/files/hello.txt', '/resources/files/%2e%2e/secret.txt', '/resources/files/nonexistent']) {
      assert.equal((await fetchBytes(secure.url, target)).status, 401, `no token ${target}`);
      assert.equal((await fetchBytes(secure.url, target, { headers: bearer(tokens.watcher) })).status, 403, `watcher ${target}`);
    }
    for (const credential of ['files', 'operator']) {
      const answer = await fetchBytes(secure.url, '/resources/files/hello.txt', { headers: bearer(tokens[credential]) });
      assert.equal(answer.status, 200, credential);
      assert.equal(answer.body.toString(), HELLO);
      assertRefused(await fetchBytes(secure.url, '/resources/files/%2e%2e/secret.txt', { headers: bearer(tokens[credential]) }), credential);
    }
  });
});
