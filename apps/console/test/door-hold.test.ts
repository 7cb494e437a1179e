import { HttpRefusalError } from '@murmur/client';
import type { AgentCard } from '@murmur/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DoorClient } from '../src/lib/door/door-client';
import { UNREACHABLE_BACKOFF_MS } from '../src/lib/door/door-hold';
import { DoorSession } from '../src/lib/door/door-session.svelte';
import { TokenStore } from '../src/lib/door/tokens';
import { fakeClient } from './support/fake-client';

const card = {
  name: 'secure',
  version: '0.1.0',
  capabilities: { extendedAgentCard: true },
  securityRequirements: [{ schemes: { bearer: { list: [] } } }],
} as unknown as AgentCard;
const unauthorized = () =>
  new HttpRefusalError({ status: 401, wwwAuthenticate: 'Bearer realm="secure"', code: 'unauthenticated', message: 'this door needs a bearer token' });
const unreachable = () =>
  new HttpRefusalError({
    status: 502,
    wwwAuthenticate: null,
    code: 'door_unreachable',
    message: 'cannot reach the door at 127.0.0.1:41873: connect ECONNREFUSED',
  });
const listed = { tasks: [], nextPageToken: '', pageSize: 0, totalSize: 0 };

const memory = (): Storage => {
  const map = new Map<string, string>();
  return {
    get length() {
      return map.size;
    },
    clear: () => map.clear(),
    getItem: (k) => map.get(k) ?? null,
    key: (i) => [...map.keys()][i] ?? null,
    removeItem: (k) => void map.delete(k),
    setItem: (k, v) => void map.set(k, v),
  };
};

function setup(listTasks: () => Promise<unknown>) {
  const fake = fakeClient();
  fake.client.getCard.mockResolvedValue(card);
  fake.client.listTasks.mockImplementation(listTasks);
  let act: () => void = () => undefined;
  const door = new DoorSession('127.0.0.1:41873', {
    origin: 'http://127.0.0.1:7070',
    tokens: new TokenStore(memory()),
    createClient: (): DoorClient => fake.client,
    capsuleGone: null,
    operatorActs: (listener) => {
      act = listener;
      return () => undefined;
    },
  });
  return { door, fake, act: () => act() };
}

describe('a door that said it needs a token', () => {
  it('is asked one request, then nothing that needs a token until the operator acts', async () => {
    const { door, fake, act } = setup(() => Promise.reject(unauthorized()));
    await door.start();
    await vi.waitFor(() => expect(door.watch.state).toBe('needs-token'));
    expect(fake.client.listTasks).toHaveBeenCalledTimes(1);
    expect(fake.client.watchSession).not.toHaveBeenCalled();
    // The public card needs no token: it is read.
    expect(fake.client.getCard).toHaveBeenCalledTimes(1);
    expect(door.tokenProblem).toMatchObject({ needsToken: true, detail: 'this door needs a bearer token' });
    expect(door.tasks.problem).toMatchObject({ needsToken: true });

    // Anything the console would ask by itself is answered without a request.
    await door.tasks.load();
    await door.watch.reconnect();
    await expect(door.client.getTask('tsk_1')).rejects.toMatchObject({ name: 'HeldRequest' });
    expect(fake.client.listTasks).toHaveBeenCalledTimes(1);
    expect(fake.client.getTask).not.toHaveBeenCalled();
    expect(fake.client.watchSession).not.toHaveBeenCalled();

    // The operator clicks: the next request asks the door again (and is held again on its 401).
    act();
    await door.tasks.load();
    expect(fake.client.listTasks).toHaveBeenCalledTimes(2);
    await door.tasks.load();
    expect(fake.client.listTasks).toHaveBeenCalledTimes(2);
    door.dispose();
  });

  it('is asked again at once with a new token', async () => {
    const { door, fake } = setup(() => Promise.reject(unauthorized()));
    await door.start();
    fake.client.listTasks.mockResolvedValue(listed);
    door.setToken('mur_abc');
    await vi.waitFor(() => expect(fake.client.watchSession).toHaveBeenCalledTimes(1));
    expect(fake.client.listTasks).toHaveBeenCalledTimes(2);
    door.dispose();
  });
});

describe('a door nobody answers', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('is asked again on the stated back-off (5, 10, 20, 40 s, then every 60 s), one request each time, until it answers', async () => {
    expect(UNREACHABLE_BACKOFF_MS).toEqual([5_000, 10_000, 20_000, 40_000, 60_000]);
    const { door, fake } = setup(() => Promise.reject(unreachable()));
    await door.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(fake.client.listTasks).toHaveBeenCalledTimes(1);
    expect(fake.client.getCard).not.toHaveBeenCalled();
    expect(fake.client.watchSession).not.toHaveBeenCalled();
    expect(door.tasks.problem).toMatchObject({ kind: 'unreachable' });

    const calls: number[] = [];
    for (const wait of [5_000, 10_000, 20_000, 40_000, 60_000, 60_000]) {
      await vi.advanceTimersByTimeAsync(wait - 1);
      calls.push(fake.client.listTasks.mock.calls.length);
      await vi.advanceTimersByTimeAsync(1);
      calls.push(fake.client.listTasks.mock.calls.length);
    }
    expect(calls).toEqual([1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7]);
    expect(fake.client.getCard).not.toHaveBeenCalled();

    // It answers: the cards are read and the watch opens; nothing more is scheduled.
    fake.client.listTasks.mockResolvedValue(listed);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(fake.client.listTasks).toHaveBeenCalledTimes(8);
    expect(fake.client.getCard).toHaveBeenCalledTimes(1);
    expect(fake.client.watchSession).toHaveBeenCalledTimes(1);
    expect(door.askAgainAt).toBeNull();
    door.dispose();
  });
});
