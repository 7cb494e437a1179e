// @vitest-environment jsdom (the token store's default is the browser's sessionStorage)
import { A2AError, HttpRefusalError } from '@murmur/client';
import type { AgentCard } from '@murmur/protocol';
import { describe, expect, it, vi } from 'vitest';
import type { DoorClient } from '../src/lib/door/door-client';
import { DoorSession } from '../src/lib/door/door-session.svelte';
import { TokenStore } from '../src/lib/door/tokens';
import { connection, status, T1, task } from './support/events';
import { fakeClient, settle } from './support/fake-client';

class MemoryStorage implements Storage {
  #map = new Map<string, string>();
  get length() {
    return this.#map.size;
  }
  clear() {
    this.#map.clear();
  }
  getItem(key: string) {
    return this.#map.get(key) ?? null;
  }
  key(index: number) {
    return [...this.#map.keys()][index] ?? null;
  }
  removeItem(key: string) {
    this.#map.delete(key);
  }
  setItem(key: string, value: string) {
    this.#map.set(key, value);
  }
}

const card = (secure: boolean) =>
  ({
    name: 'secure',
    version: '0.1.0',
    capabilities: { extendedAgentCard: secure },
    securityRequirements: secure ? [{ schemes: { bearer: { list: [] } } }] : [],
  }) as unknown as AgentCard;
const unauthorized = () =>
  new HttpRefusalError({ status: 401, wwwAuthenticate: 'Bearer realm="secure"', code: 'unauthenticated', message: 'this door needs a bearer token' });

function setup(stored: string | null = null) {
  const storage = new MemoryStorage();
  if (stored) storage.setItem('murmur-console.token.127.0.0.1:41873', stored);
  const made: { address: string; token: string | null; fake: ReturnType<typeof fakeClient> }[] = [];
  const createClient = (address: string, token: string | null): DoorClient => {
    const fake = fakeClient();
    fake.client.getCard.mockResolvedValue(card(true));
    fake.client.getExtendedCard.mockImplementation(async () => (token ? card(true) : Promise.reject(unauthorized())));
    fake.client.listTasks.mockImplementation(async () =>
      token ? { tasks: [], nextPageToken: '', pageSize: 0, totalSize: 0 } : Promise.reject(unauthorized()),
    );
    made.push({ address, token, fake });
    return fake.client;
  };
  const door = new DoorSession('127.0.0.1:41873', { origin: 'http://127.0.0.1:7070', tokens: new TokenStore(storage), createClient });
  return { door, made, storage };
}

describe('DoorSession', () => {
  it('talks to the door through the console proxy', () => {
    const { made } = setup();
    expect(made[0].address).toBe('http://127.0.0.1:7070/api/door/127.0.0.1:41873');
    expect(made[0].token).toBeNull();
  });

  it('asks for a token after a 401, keeps it in sessionStorage, and starts again with it', async () => {
    const { door, made, storage } = setup();
    door.start();
    await settle();
    expect(door.tokenProblem).toMatchObject({ needsToken: true });
    expect(door.cards.authenticated).toBe(true);
    expect(door.cards.extendedNote).toMatch(/token/);

    door.setToken('mur_abc');
    expect(storage.getItem('murmur-console.token.127.0.0.1:41873')).toBe('mur_abc');
    expect(made).toHaveLength(2);
    expect(made[1].token).toBe('mur_abc');
    expect(door.tokenProblem).toBeNull();
    await settle();
    expect(made[1].fake.client.watchSession).toHaveBeenCalledTimes(1);
    expect(made[1].fake.client.listTasks).toHaveBeenCalledTimes(1);
    expect(door.cards.extended?.name).toBe('secure');

    expect(door.tasks.page).not.toBeNull();

    // Forgetting the token forgets what was read with it.
    door.forgetToken();
    expect(storage.getItem('murmur-console.token.127.0.0.1:41873')).toBeNull();
    expect(made[2].token).toBeNull();
    expect(door.tasks.page).toBeNull();
    expect(door.cards.extended).toBeNull();
    door.dispose();
  });

  it('uses a token kept earlier in this browser session', () => {
    const { made, door } = setup('mur_kept');
    expect(made[0].token).toBe('mur_kept');
    expect(door.token).toBe('mur_kept');
  });

  it('re-lists tasks when the watch shows a status change', async () => {
    vi.useFakeTimers();
    try {
      const { door, made } = setup('mur_kept');
      door.start();
      await vi.advanceTimersByTimeAsync(0);
      const list = made[0].fake.client.listTasks;
      expect(list).toHaveBeenCalledTimes(1);
      const watch = made[0].fake.streams.find((s) => s.method === 'watchSession')!.channel;
      watch.push(connection('open'), status(T1, 'TASK_STATE_WORKING', 'inference turn 1'), status(T1, 'TASK_STATE_COMPLETED'));
      await vi.advanceTimersByTimeAsync(1000);
      expect(list).toHaveBeenCalledTimes(2);
      expect(door.watch.state).toBe('live');
      door.dispose();
    } finally {
      vi.useRealTimers();
    }
  });

  it('sends a message (returnImmediately) and stops the session', async () => {
    const { door, made } = setup('mur_kept');
    const client = made[0].fake.client;
    client.sendText.mockResolvedValue(task(T1, 'TASK_STATE_SUBMITTED'));
    client.stopSession.mockResolvedValue({ session_id: 'ses_1', canceled: [T1], residue: [] });
    await door.sendMessage('What is 2+2?', ' ctx_1 ');
    expect(client.sendText).toHaveBeenCalledWith('What is 2+2?', { contextId: 'ctx_1', returnImmediately: true });
    expect(door.send.result?.id).toBe(T1);
    await door.stopSession();
    expect(door.stop.result?.canceled).toEqual([T1]);
    door.dispose();
  });

  it('notes that a public door has no extended card', async () => {
    const { door, made } = setup('mur_kept');
    made[0].fake.client.getExtendedCard.mockRejectedValue(A2AError.from({ code: -32004, message: 'Unsupported operation' }));
    await door.cards.load();
    expect(door.cards.extended).toBeNull();
    expect(door.cards.extendedNote).toBe('This door is public: it has no extended card.');
  });
});

describe('DoorSession cards', () => {
  it('does not ask for a token to read the extended card of a public door', async () => {
    const storage = new MemoryStorage();
    const fake = fakeClient();
    fake.client.getCard.mockResolvedValue(card(false));
    const door = new DoorSession('127.0.0.1:1', { origin: 'http://127.0.0.1:7070', tokens: new TokenStore(storage), createClient: () => fake.client });
    await door.cards.load();
    expect(door.cards.authenticated).toBe(false);
    expect(door.cards.extendedNote).toBe('This door is public: it has no extended card.');
    expect(fake.client.getExtendedCard).not.toHaveBeenCalled();
  });
});
