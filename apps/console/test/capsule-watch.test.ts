import { describe, expect, it } from 'vitest';
import { capsuleGone } from '../src/lib/door/capsule-watch';
import { useConsoleFetch } from './support/console-fetch';

const sessions = (stale: boolean) => async () =>
  new Response(
    JSON.stringify({
      sessions: [
        {
          sessionId: 'ses_1',
          name: 'n',
          version: '1',
          url: 'http://127.0.0.1:41873',
          pid: 4242,
          capsuleDir: '/c',
          recordsDir: '/r',
          startedAt: '2026-01-01T00:00:00.000Z',
          stale,
          reachable: !stale,
        },
      ],
    }),
    { headers: { 'content-type': 'application/json' } },
  );

describe('capsuleGone', () => {
  it('names the gone process of a stale entry for this door', async () => {
    useConsoleFetch(sessions(true));
    expect(await capsuleGone('127.0.0.1:41873')).toBe("the capsule's process 4242 is gone");
  });
  it('null for a live entry, another door, or no answer', async () => {
    useConsoleFetch(sessions(false));
    expect(await capsuleGone('127.0.0.1:41873')).toBeNull();
    useConsoleFetch(sessions(true));
    expect(await capsuleGone('127.0.0.1:1')).toBeNull();
    useConsoleFetch(async () => {
      throw new TypeError('offline');
    });
    expect(await capsuleGone('127.0.0.1:41873')).toBeNull();
  });
});
