import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { consoleFetch, getJson, objectBody, replaceConsoleFetch, requireJson } from '../src/lib/io/console-api';
import { ConsoleApiError, describeError } from '../src/lib/io/errors';
import { useConsoleFetch } from './support/console-fetch';

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
const readCount = (body: unknown): number => {
  const count = (body as { count?: unknown }).count;
  if (typeof count !== 'number') throw new ConsoleApiError('not a count', null);
  return count;
};

describe('the one typed JSON getter', () => {
  it('GETs through the one fetch, asking for JSON (with the door token when given), and reads the body typed', async () => {
    const fetch = useConsoleFetch(vi.fn(async (_url: string, _init?: RequestInit) => json({ count: 3 })));
    const answer = await getJson('/api/things', { read: readCount, token: 'mur_t' });
    expect(answer).toEqual({ ok: true, body: 3 });
    expect(fetch).toHaveBeenCalledTimes(1);
    const [url, init] = fetch.mock.calls[0] as [string, RequestInit];
    expect(url).toBe('/api/things');
    expect(init.headers).toEqual({ accept: 'application/json', authorization: 'Bearer mur_t' });

    await getJson('/api/things', { read: readCount });
    expect((fetch.mock.calls[1] as [string, RequestInit])[1].headers).toEqual({ accept: 'application/json' });
  });

  it('answers a refusal, no answer and a body that is not JSON as {ok: false} with the status and why', async () => {
    useConsoleFetch(async () => json({ error: 'not_loopback', message: 'for a loopback peer only' }, 403));
    expect(await getJson('/api/formations', { read: readCount })).toEqual({
      ok: false,
      status: 403,
      url: '/api/formations',
      why: '/api/formations answered HTTP 403: for a loopback peer only',
    });
    useConsoleFetch(async () => new Response('bad gateway', { status: 502 }));
    expect(await getJson('/api/x', { read: readCount })).toMatchObject({ ok: false, status: 502, why: '/api/x answered HTTP 502' });
    useConsoleFetch(async () => {
      throw new TypeError('offline');
    });
    expect(await getJson('/api/x', { read: readCount })).toMatchObject({ ok: false, status: null, why: 'no answer from /api/x: offline' });
    useConsoleFetch(async () => new Response('<!doctype html>', { status: 200 }));
    expect(await getJson('/api/x', { read: readCount })).toMatchObject({ ok: false, status: null, why: expect.stringContaining('did not answer JSON') });
  });

  it('rethrows an abort the caller asked for, and what the reader throws', async () => {
    const abort = new AbortController();
    useConsoleFetch(async () => {
      abort.abort();
      throw new DOMException('aborted', 'AbortError');
    });
    await expect(getJson('/api/x', { read: readCount, signal: abort.signal })).rejects.toThrow('aborted');
    useConsoleFetch(async () => json({ count: 'three' }));
    await expect(getJson('/api/x', { read: readCount })).rejects.toThrow('not a count');
    useConsoleFetch(async () => json([1, 2]));
    await expect(getJson('/api/x', { read: objectBody('/api/x') })).rejects.toThrow('/api/x answered something that is not a JSON object');
  });

  it('requireJson throws a ConsoleApiError that describeError words as mur console’s problem', async () => {
    useConsoleFetch(async () => new Response('nope', { status: 502 }));
    const error = await requireJson('/api/sessions', { read: readCount }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConsoleApiError);
    expect(describeError(error)).toMatchObject({ kind: 'api', title: 'mur console did not answer', detail: '/api/sessions answered HTTP 502', code: 502 });
  });

  it('replaceConsoleFetch gives back the fetch it replaced', async () => {
    const first = vi.fn(async () => json({ count: 1 }));
    const second = vi.fn(async () => json({ count: 2 }));
    const restoreFirst = replaceConsoleFetch(first);
    const restoreSecond = replaceConsoleFetch(second);
    await consoleFetch('/a');
    restoreSecond();
    await consoleFetch('/b');
    restoreFirst();
    expect(second).toHaveBeenCalledWith('/a', undefined);
    expect(first).toHaveBeenCalledWith('/b', undefined);
  });
});

describe('no module but the getter calls fetch', () => {
  const src = path.join(path.dirname(fileURLToPath(import.meta.url)), '../src');
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((e) => (statSync(path.join(dir, e)).isDirectory() ? files(path.join(dir, e)) : [path.join(dir, e)]));

  it('finds the global fetch named only in lib/io/console-api.ts', () => {
    const callers = files(src)
      .filter((f) => /\.(ts|svelte)$/.test(f))
      .filter((f) => /(^|[^.\w])fetch\s*\(|globalThis\.fetch|window\.fetch/.test(readFileSync(f, 'utf8')))
      .map((f) => path.relative(src, f));
    expect(callers).toEqual([path.join('lib', 'io', 'console-api.ts')]);
  });
});
