import { describe, expect, it, vi } from 'vitest';
import { addedDoorStatus } from '../src/lib/capsules/added-door-states.svelte';
import { useConsoleFetch } from './support/console-fetch';

const door = (hasToken: boolean) => ({ key: '10.0.0.5:4000', url: 'http://10.0.0.5:4000', hasToken });
const card = (secured: boolean) =>
  new Response(
    JSON.stringify({ name: 'secure', version: '0.1.0', ...(secured ? { securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } } } } : {}) }),
  );

describe('an added door’s status on the capsules page', () => {
  it('reads its public card through the proxy: name, version, running', async () => {
    const fetch = useConsoleFetch(vi.fn(async (_url: string) => card(false)));
    expect(await addedDoorStatus(door(false), null)).toEqual({ name: 'secure', version: '0.1.0', state: 'running', reason: null });
    expect(fetch).toHaveBeenCalledWith('/api/door/10.0.0.5:4000/.well-known/agent-card.json', expect.anything());
  });

  it('needs a token when its card asks for one and neither a token file nor the tab holds one', async () => {
    useConsoleFetch(async () => card(true));
    expect((await addedDoorStatus(door(false), null)).state).toBe('needs a token');
    expect((await addedDoorStatus(door(true), null)).state).toBe('running');
    expect((await addedDoorStatus(door(false), 'mur_t')).state).toBe('running');
  });

  it('is unreachable, with why, when the proxy cannot reach it or it answers no card', async () => {
    useConsoleFetch(
      async () => new Response(JSON.stringify({ error: 'door_unreachable', message: 'cannot reach the door at 10.0.0.5:4000: ECONNREFUSED' }), { status: 502 }),
    );
    expect(await addedDoorStatus(door(false), null)).toEqual({
      name: null,
      version: null,
      state: 'unreachable',
      reason: '/api/door/10.0.0.5:4000/.well-known/agent-card.json answered HTTP 502: cannot reach the door at 10.0.0.5:4000: ECONNREFUSED',
    });
    useConsoleFetch(async () => new Response('[1]'));
    expect(await addedDoorStatus(door(false), null)).toMatchObject({ state: 'unreachable', reason: 'the door answered something that is not an agent card' });
  });
});

describe('a door that never answers', () => {
  it('reads unreachable once its card was waited for long enough, not "asking" for ever', async () => {
    useConsoleFetch(
      (_url, init) =>
        new Promise<Response>((_resolve, reject) => {
          init?.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
        }),
    );
    expect(await addedDoorStatus(door(false), null, 20)).toEqual({ name: null, version: null, state: 'unreachable', reason: 'no answer in 0.02 s' });
  });
});
