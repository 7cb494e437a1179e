import { describe, expect, it } from 'vitest';
import { readSessions, Sessions, sessionState } from '../src/lib/capsules/sessions.svelte';
import { useConsoleFetch } from './support/console-fetch';

const body = {
  sessions: [
    {
      sessionId: 'ses_1',
      name: 'hello',
      version: '0.1.0',
      url: 'http://127.0.0.1:41873',
      pid: 10,
      startedAt: '2026-11-29T15:00:00.000Z',
      stale: false,
      reachable: true,
      needsInput: 2,
    },
    {
      sessionId: 'ses_2',
      name: 'secure',
      version: '0.1.0',
      url: 'http://127.0.0.1:41874',
      pid: 11,
      startedAt: '2026-11-29T15:00:01.000Z',
      stale: false,
      reachable: false,
      reason: 'no answer',
    },
    {
      sessionId: 'ses_3',
      name: 'old',
      version: '0.0.1',
      url: 'http://127.0.0.1:41875',
      pid: 12,
      startedAt: '2026-11-28T15:00:00.000Z',
      stale: true,
      reachable: false,
    },
    { nonsense: true },
  ],
};

describe('sessions', () => {
  it('names each state', () => {
    expect(sessionState({ stale: false, reachable: true })).toBe('running');
    expect(sessionState({ stale: false, reachable: false })).toBe('unreachable');
    expect(sessionState({ stale: true, reachable: true })).toBe('stale');
  });

  it('reads the entries it can, with their door keys', () => {
    const rows = readSessions(body);
    expect(rows.map((r) => [r.name, r.state, r.door])).toEqual([
      ['hello', 'running', '127.0.0.1:41873'],
      ['secure', 'unreachable', '127.0.0.1:41874'],
      ['old', 'stale', '127.0.0.1:41875'],
    ]);
    expect(rows[1].reason).toBe('no answer');
    expect(rows.map((r) => r.needsInput)).toEqual([2, undefined, undefined]);
    expect(() => readSessions({ nope: 1 })).toThrow(/not a session list/);
  });

  it('refreshes from /api/sessions and says when mur console does not answer', async () => {
    const calls: string[] = [];
    useConsoleFetch(async (url) => {
      calls.push(url);
      return new Response(JSON.stringify(body), { status: 200 });
    });
    const ok = new Sessions();
    await ok.refresh();
    expect(calls).toEqual(['/api/sessions']);
    expect(ok.rows).toHaveLength(3);
    expect(ok.problem).toBeNull();

    useConsoleFetch(async () => new Response('nope', { status: 502 }));
    const down = new Sessions();
    await down.refresh();
    expect(down.rows).toBeNull();
    expect(down.problem).toMatchObject({ kind: 'api', title: 'mur console did not answer', code: 502 });

    useConsoleFetch(async () => new Response('<!doctype html>', { status: 200 }));
    const html = new Sessions();
    await html.refresh();
    expect(html.problem?.detail).toMatch(/mur console/);
  });
});
