/** A door the test controls: one-shot methods are vi.fn()s, streams are channels the test pushes events into. */
import type { MurmurStream, MurmurStreamEvent } from '@murmur/client';
import { vi } from 'vitest';
import type { DoorClient } from '../../src/lib/door/door-client';

/** An async iterable the test feeds: push events, end it, or fail it. Aborting the signal ends it with the reason. */
export class Channel implements AsyncIterable<MurmurStreamEvent> {
  #queue: MurmurStreamEvent[] = [];
  #waiting: ((r: IteratorResult<MurmurStreamEvent>) => void) | null = null;
  #fail: ((e: unknown) => void) | null = null;
  #ended = false;
  #error: unknown = null;
  signal: AbortSignal | undefined;

  push(...events: MurmurStreamEvent[]): void {
    for (const event of events) {
      if (this.#waiting) {
        const resolve = this.#waiting;
        this.#waiting = null;
        resolve({ value: event, done: false });
      } else this.#queue.push(event);
    }
  }

  end(): void {
    this.#ended = true;
    this.#waiting?.({ value: undefined, done: true });
    this.#waiting = null;
  }

  fail(error: unknown): void {
    this.#error = error;
    this.#fail?.(error);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<MurmurStreamEvent> {
    for (;;) {
      if (this.#error) throw this.#error;
      const next = this.#queue.shift();
      if (next) {
        yield next;
        continue;
      }
      if (this.#ended) return;
      const result = await new Promise<IteratorResult<MurmurStreamEvent>>((resolve, reject) => {
        this.#waiting = resolve;
        this.#fail = reject;
        this.signal?.addEventListener('abort', () => reject(this.signal?.reason), { once: true });
      });
      if (result.done) return;
      yield result.value;
    }
  }
}

export function fakeClient() {
  const streams: { method: string; args: unknown[]; channel: Channel }[] = [];
  const open =
    (method: string) =>
    (...args: unknown[]) => {
      const channel = new Channel();
      const options = args[args.length - 1] as { signal?: AbortSignal } | undefined;
      channel.signal = options?.signal;
      streams.push({ method, args, channel });
      return channel as unknown as MurmurStream;
    };
  const client = {
    address: 'http://127.0.0.1:7070/api/door/127.0.0.1:41873',
    getCard: vi.fn(),
    getExtendedCard: vi.fn(),
    getTask: vi.fn(),
    listTasks: vi.fn(),
    cancelTask: vi.fn(),
    reply: vi.fn(),
    sendText: vi.fn(),
    stopSession: vi.fn(),
    subscribeToTask: vi.fn(open('subscribeToTask')),
    watchSession: vi.fn(open('watchSession')),
  } satisfies DoorClient;
  return { client, streams };
}

/** Lets pending promise callbacks run. */
export const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
