/**
 * A scope's source against a hostile server on a real loopback port (docs/artifacts.md, "What an attacker can and
 * cannot do"): an endless body, a Content-Length past the bound, redirects to file: and to another host, a slow drip,
 * and another owner, refused before the archive is asked for.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { stringify } from 'yaml';
import { ARCHIVE_BOUNDS } from '../../artifacts/archive-bounds.js';
import { GithubSource } from '../../artifacts/github-source.js';
import { InstallGrant } from '../../artifacts/install-grant.js';
import { PlaceUnreadable } from '../../artifacts/place.js';
import { WasmHost } from '../wasm/wasm-host.js';
import { fetchArtifact } from './artifact-fetch.js';

const MIB = 1024 * 1024;
const tempDir = (prefix: string) => mkdtempSync(path.join(os.tmpdir(), `murmur-${prefix}-`));
const recordOf = (fullName: string, digest: string) => ({ artifact: fullName, version: '1.0.0', digest, runtime: 'tool', implementation: 'native' });

/** A loopback server playing a hostile GitHub: each test sets how it answers; it counts what it sent and was asked. */
interface HostileSource {
  url: string;
  answer: (res: ServerResponse, url: string) => void;
  requests: string[];
  sent: number;
  server: Server;
}

async function hostileSource(): Promise<HostileSource> {
  const state = { url: '', answer: (res: ServerResponse) => res.writeHead(404).end(), requests: [] as string[], sent: 0 } as unknown as HostileSource;
  state.server = createServer((req, res) => {
    state.requests.push(req.url ?? '');
    state.answer(res, req.url ?? '');
  });
  await new Promise<void>((resolve) => state.server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(state.server.address() as AddressInfo).port}`;
  return state;
}

/** Writes 64 KiB chunks while the client reads them, until it hangs up. */
function endless(source: HostileSource, res: ServerResponse): void {
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  const more = () => {
    while (!res.destroyed) {
      source.sent += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', more);
    }
  };
  res.on('close', () => undefined);
  more();
}

describe('a hostile source, on a real loopback port', () => {
  let source: HostileSource;
  before(async () => {
    source = await hostileSource();
  });
  after(() => source.server.closeAllConnections?.());
  after(() => new Promise<void>((resolve) => source.server.close(() => resolve())));

  const github = () => new GithubSource({ owner: 'acme', repo: 'tools' }, source.url);
  const unreadable = (why: RegExp) => (error: unknown) => error instanceof PlaceUnreadable && why.test(error.message);

  test('an endless archive is cut at 32 MiB: the door reads no more, and holds no more', async () => {
    source.sent = 0;
    source.answer = (res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      endless(source, res);
    };
    const before = process.memoryUsage().rss;
    await assert.rejects(
      github().archive('acme/x', '1.0.0'),
      unreadable(/github:acme\/tools's answer for acme\/x\/1\.0\.0\.tgz is larger than 33554432 bytes/),
    );
    assert.ok(source.sent < ARCHIVE_BOUNDS.archiveBytes + 16 * MIB, `the source wrote ${source.sent} bytes`);
    assert.ok(process.memoryUsage().rss - before < 256 * MIB, 'the door’s memory stays bounded');
    source.sent = 0;
    await assert.rejects(github().ownerId(), unreadable(/answer for the repository is larger than 1048576 bytes/));
    assert.ok(source.sent < 16 * MIB, `a JSON answer is cut at 1 MiB (the source wrote ${source.sent} bytes)`);
  });

  test('a Content-Length past the bound is refused before its body is read', async () => {
    source.sent = 0;
    source.answer = (res) => {
      res.writeHead(200, { 'content-length': String(64 * 1024 * MIB) });
      endless(source, res);
    };
    await assert.rejects(github().archive('acme/x', '1.0.0'), unreadable(/is larger than 33554432 bytes/));
    assert.ok(source.sent < 16 * MIB, `the source wrote ${source.sent} bytes`);
  });

  test('a redirect, to file: or to another host, is not followed', async () => {
    const other = await hostileSource();
    try {
      for (const location of ['file:///etc/passwd', `${other.url}/elsewhere`, '/repos/acme/tools/contents/acme/x/2.0.0.tgz']) {
        source.requests = [];
        source.answer = (res) => res.writeHead(302, { location }).end();
        await assert.rejects(github().archive('acme/x', '1.0.0'), unreadable(/github:acme\/tools answered 302 for acme\/x\/1\.0\.0\.tgz/));
        assert.equal(source.requests.length, 1, `${location}: one request, no second`);
      }
      assert.deepEqual(other.requests, [], 'the other host is never asked');
    } finally {
      other.server.close();
    }
  });

  test('a slow drip is ended by the request’s own 10 s timer', async () => {
    let timer: NodeJS.Timeout | undefined;
    source.answer = (res) => {
      res.writeHead(200, { 'content-length': '100000' });
      timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write('a')), 250);
    };
    const started = Date.now();
    try {
      await assert.rejects(github().archive('acme/x', '1.0.0'), unreadable(/github:acme\/tools could not be read: it did not answer within 10 s/));
    } finally {
      clearInterval(timer);
    }
    const took = Date.now() - started;
    assert.ok(took >= 9_000 && took < 15_000, `ended after ${took} ms`);
  });

  test('a source that answers for another owner is refused (E-REG-010) before its archive is asked for, and nothing is unpacked', async () => {
    source.requests = [];
    source.answer = (res, url) => {
      if (url === '/repos/acme/tools') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ owner: { id: 666 } }));
      else if (url.endsWith('/contents/acme/x')) res.writeHead(200).end(JSON.stringify([{ name: '1.0.0.tgz', type: 'file' }]));
      else if (url.endsWith('.yaml')) res.writeHead(200).end(stringify(recordOf('acme/x', `sha256:${'1'.repeat(64)}`)));
      else res.writeHead(200).end(Buffer.alloc(10));
    };
    const capsule = tempDir('capsule');
    const lock = { lock_version: 1 as const, scopes: { acme: { source: 'github:acme/tools', owner: '42' } }, artifacts: {} };
    const grant = new InstallGrant({ tool: ['acme/*'], skill: [], from: ['stores', 'sources'] });
    const deps = {
      capsuleDir: capsule,
      murmurHome: tempDir('home'),
      sourceApiUrl: source.url,
      wasm: new WasmHost({ maxSecs: 1, maxMemoryMib: 16 }),
      workRoot: tempDir('work-root'),
    };
    await assert.rejects(fetchArtifact(deps, lock, 'acme/x', null, { kind: 'agent', grant }), (error: Error) =>
      /not-fetched: E-REG-010: github:acme\/tools answers for owner 666, and murmur\.lock records owner 42 for scope acme/.test(error.message),
    );
    assert.equal(
      source.requests.some((url) => url.endsWith('.tgz')),
      false,
      `no archive was asked for: ${source.requests.join(', ')}`,
    );
    assert.deepEqual(readdirSync(deps.workRoot), [], 'nothing was unpacked');
  });
});
