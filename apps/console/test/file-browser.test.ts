import type { ConsolePeerHandlesResponse, FilesListing } from '@murmur/protocol';
import { describe, expect, it } from 'vitest';
import { FileBrowser } from '../src/lib/files/file-browser.svelte';
import { cardPlanes, formatBytes, planeUrl, previewKind } from '../src/lib/files/files-plane';
import { PeerHandlesView } from '../src/lib/records/peer-handles.svelte';
import { useConsoleFetch } from './support/console-fetch';

type Call = { url: string; method: string; headers: Record<string, string> };

function fakeDoor(files: Record<string, { type: string; body: string }>, listing: FilesListing, status = 200) {
  const calls: Call[] = [];
  const fetcher = async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input);
    const method = init?.method ?? 'GET';
    calls.push({ url, method, headers: (init?.headers ?? {}) as Record<string, string> });
    if (status !== 200) return new Response(JSON.stringify({ error: 'invalid_token', message: 'a token is required' }), { status });
    if (url.endsWith('/')) return new Response(JSON.stringify(listing), { headers: { 'content-type': 'application/json' } });
    const name = decodeURIComponent(url.slice(url.lastIndexOf('/') + 1));
    const file = files[name];
    if (!file) return new Response('{"error":"file_not_found","message":"nothing is served at this path of the operator plane"}', { status: 404 });
    return new Response(method === 'HEAD' ? null : file.body, { headers: { 'content-type': file.type } });
  };
  return { calls, fetcher: useConsoleFetch(fetcher) };
}

const entry = (name: string, size: number, type: 'file' | 'folder' = 'file') => ({ name, type, size, modified: '2026-01-01T00:00:00.000Z' });
const urls = () => {
  let n = 0;
  const live = new Set<string>();
  return {
    live,
    createObjectURL: () => {
      const u = `blob:${++n}`;
      live.add(u);
      return u;
    },
    revokeObjectURL: (u: string) => void live.delete(u),
  };
};

describe('FileBrowser', () => {
  const listing: FilesListing = {
    path: 'docs/',
    entries: [entry('a.txt', 6), entry('big.log', 1_000_000), entry('pic.png', 10), entry('x.zip', 10), entry('img', 0, 'folder')],
    truncated: false,
  };
  const files = {
    'a.txt': { type: 'text/plain; charset=utf-8', body: 'hello\n' },
    'big.log': { type: 'text/plain; charset=utf-8', body: 'start' },
    'pic.png': { type: 'image/png', body: 'PNG' },
    'x.zip': { type: 'application/zip', body: 'PK' },
  };

  it('lists a folder with the token, previews text (a Range past 256 KiB), images as object URLs, and nothing for a zip', async () => {
    const door = fakeDoor(files, listing);
    const objectUrls = urls();
    const browser = new FileBrowser({ base: 'http://c/api/door/127.0.0.1:1', token: () => 'tok', door: '127.0.0.1:1', objectUrls });
    await browser.open(['docs']);
    expect(door.calls[0]).toMatchObject({
      url: 'http://c/api/door/127.0.0.1:1/resources/files/docs/',
      method: 'GET',
      headers: { authorization: 'Bearer tok' },
    });
    expect(browser.listing?.entries.map((e) => e.name)).toEqual(['a.txt', 'big.log', 'pic.png', 'x.zip', 'img']);
    await browser.show(listing.entries[0]);
    expect(browser.preview).toMatchObject({ kind: 'text', text: 'hello\n', truncated: false });
    await browser.show(listing.entries[1]);
    expect(door.calls.at(-1)?.headers.range).toBe('bytes=0-262143');
    expect(browser.preview).toMatchObject({ kind: 'text', truncated: true });
    await browser.show(listing.entries[2]);
    expect(browser.preview).toMatchObject({ kind: 'image', url: 'blob:1' });
    await browser.show(listing.entries[3]);
    expect(browser.preview).toMatchObject({ kind: 'none', reason: 'No preview for application/zip: download it.' });
    expect(objectUrls.live.size).toBe(0);
    // With a token a download is read into a Blob; release frees it.
    const url = await browser.downloadUrl(listing.entries[0]);
    expect(url).toBe('blob:2');
    browser.release(url);
    expect(objectUrls.live.size).toBe(0);
  });

  it('links a download to the plane itself on a public door', async () => {
    fakeDoor(files, listing);
    const browser = new FileBrowser({ base: 'http://c/api/door/127.0.0.1:1', token: () => null, door: '127.0.0.1:1' });
    await browser.open(['docs']);
    expect(await browser.downloadUrl(entry('a b.txt', 1))).toBe('http://c/api/door/127.0.0.1:1/resources/files/docs/a%20b.txt');
  });

  it('reports a refusal as the door’s problem (401 asks for a token)', async () => {
    fakeDoor(files, listing, 401);
    const seen: string[] = [];
    const browser = new FileBrowser({ base: 'http://c', token: () => null, door: '127.0.0.1:1', onProblem: (p) => seen.push(p.kind) });
    await browser.open([]);
    expect(browser.listing).toBeNull();
    expect(browser.problem?.needsToken).toBe(true);
    expect(seen).toEqual(['needs-token']);
  });
});

describe('files-plane helpers', () => {
  it('builds plane URLs, kinds and sizes', () => {
    expect(planeUrl('b', [], 'folder')).toBe('b/resources/files/');
    expect(planeUrl('b', ['a', 'c d'], 'folder')).toBe('b/resources/files/a/c%20d/');
    expect(planeUrl('b', ['a', '%x'], 'file')).toBe('b/resources/files/a/%25x');
    expect(previewKind('text/markdown; charset=utf-8')).toBe('text');
    expect(previewKind('application/json')).toBe('text');
    expect(previewKind('image/svg+xml')).toBe('image');
    expect(previewKind('application/pdf')).toBe('none');
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1024 ** 3)).toBe('1.0 GiB');
    expect(cardPlanes(null)).toEqual([]);
  });
});

describe('PeerHandlesView', () => {
  it('reads a session’s handles from the record API', async () => {
    const body: ConsolePeerHandlesResponse = {
      sessionId: 'ses_1',
      handles: [
        {
          handleId: 'hdl_1',
          taskId: null,
          audience: 'reader',
          path: 'r.txt',
          mintedAt: 'x',
          expiresAt: 'y',
          uses: 1,
          used: 1,
          state: 'used_up',
          redeems: [],
          refusals: [],
        },
      ],
    };
    const asked: string[] = [];
    useConsoleFetch(async (url: string) => {
      asked.push(url);
      return new Response(JSON.stringify(body));
    });
    const view = new PeerHandlesView();
    await view.load('ses_1');
    expect(asked).toEqual(['/api/records/sessions/ses_1/peer-handles']);
    expect(view.handles[0].state).toBe('used_up');
    await view.load(null);
    expect(view.handles).toEqual([]);
  });
});
