import { HttpRefusalError, StreamError } from '@murmur/client';
import { describe, expect, it, vi } from 'vitest';
import { LiveFeed } from '../src/lib/timeline/live-feed.svelte';
import { TimelineStore } from '../src/lib/timeline/timeline.svelte';
import { connection, manualScheduler, status, T1, T2 } from './support/events';
import { Channel, settle } from './support/fake-client';

function setup() {
  const clock = manualScheduler();
  const timeline = new TimelineStore({ scheduler: clock.scheduler });
  const channels: Channel[] = [];
  const onEvent = vi.fn();
  const onProblem = vi.fn();
  const onEnd = vi.fn();
  const feed = new LiveFeed(
    (signal) => {
      const channel = new Channel();
      channel.signal = signal;
      channels.push(channel);
      return channel;
    },
    { timeline, context: { door: '127.0.0.1:41873' }, onEvent, onProblem, onEnd },
  );
  return { clock, timeline, channels, feed, onEvent, onProblem, onEnd };
}

describe('LiveFeed', () => {
  it('shows the connection as the client reports it: connecting, live, reconnecting, live again', async () => {
    const { feed, channels } = setup();
    expect(feed.state).toBe('idle');
    void feed.start();
    expect(feed.state).toBe('connecting');
    channels[0].push(connection('open'));
    await settle();
    expect(feed.state).toBe('live');
    channels[0].push(connection('reconnecting', { reason: 'network-error', attempt: 1, delayMs: 500 }));
    await settle();
    expect(feed.state).toBe('reconnecting');
    expect(feed.detail).toBe('the connection dropped; retry 1 in 0.5 s');
    channels[0].push(connection('open', { attempt: 1 }));
    await settle();
    expect(feed.state).toBe('live');
    expect(feed.detail).toBe('reconnected (attempt 1)');
  });

  it('hands data events to the timeline (batched) and to onEvent (at once)', async () => {
    const { feed, channels, clock, timeline, onEvent } = setup();
    void feed.start();
    const event = status(T1, 'TASK_STATE_WORKING', 'inference turn 1');
    channels[0].push(connection('open'), event);
    await settle();
    expect(onEvent).toHaveBeenCalledWith(event);
    expect(timeline.rows).toEqual([]);
    clock.runFrame();
    expect(timeline.rows).toHaveLength(2);
  });

  it('is lost, with the problem in words, when the stream throws', async () => {
    const { feed, channels, onProblem } = setup();
    void feed.start();
    channels[0].push(connection('open'), connection('lost', { reason: 'network-error' }));
    await settle();
    expect(feed.state).toBe('lost');
    channels[0].fail(new StreamError('retries-exhausted', 'gave up', { method: 'murmur.WatchSession' }));
    await settle();
    expect(feed.state).toBe('lost');
    expect(feed.problem?.title).toBe('Lost the stream from the door at 127.0.0.1:41873');
    expect(onProblem).toHaveBeenCalledTimes(1);
  });

  it('reports a 401 on opening as a token problem: the door answers, so the link needs a token, it is not lost', async () => {
    const { feed, channels, onProblem } = setup();
    void feed.start();
    channels[0].fail(new HttpRefusalError({ status: 401, wwwAuthenticate: 'Bearer realm="secure"', code: 'unauthenticated', message: 'needs a token' }));
    await settle();
    expect(feed.state).toBe('needs-token');
    expect(onProblem).toHaveBeenCalledWith(expect.objectContaining({ needsToken: true, title: 'This door needs a token' }));
  });

  it('is closed after the natural end', async () => {
    const { feed, channels, onEnd } = setup();
    void feed.start();
    channels[0].push(connection('open'), connection('closed', { reason: 'natural-end' }));
    channels[0].end();
    await settle();
    expect(feed.state).toBe('closed');
    expect(onEnd).toHaveBeenCalledTimes(1);
  });

  it('stop() aborts the stream quietly; start() opens a fresh one and clears the replayed timeline', async () => {
    const { feed, channels, clock, timeline, onProblem } = setup();
    void feed.start();
    channels[0].push(connection('open'), status(T1, 'TASK_STATE_WORKING'));
    await settle();
    clock.runFrame();
    expect(timeline.rows.length).toBeGreaterThan(0);
    feed.stop();
    await settle();
    expect(channels[0].signal?.aborted).toBe(true);
    expect(onProblem).not.toHaveBeenCalled();
    void feed.start();
    expect(channels).toHaveLength(2);
    expect(timeline.rows).toEqual([]);
    expect(feed.state).toBe('connecting');
  });

  it('Reconnect keeps what was shown, marks the gap, and drops what the replay repeats', async () => {
    const { feed, channels, clock, timeline } = setup();
    void feed.start();
    const shown = [status(T1, 'TASK_STATE_SUBMITTED'), status(T1, 'TASK_STATE_WORKING', 'inference turn 1')];
    channels[0].push(connection('open'), ...shown);
    await settle();
    clock.runFrame();
    const before = timeline.rows.length;
    expect(before).toBeGreaterThan(0);
    channels[0].fail(new StreamError('retries-exhausted', 'gave up', { method: 'murmur.WatchSession' }));
    await settle();
    expect(feed.state).toBe('lost');

    void feed.reconnect();
    expect(channels).toHaveLength(2);
    expect(timeline.rows).toHaveLength(before);
    expect(timeline.banners).toHaveLength(1);
    expect(timeline.banners[0]).toMatchObject({ kind: 'gap' });
    expect(timeline.banners[0].text).toMatch(/^Reconnected: the stream was not live since /);
    // The door replays its buffer: the two events shown are dropped, the new one is applied.
    const fresh = status(T2, 'TASK_STATE_SUBMITTED');
    channels[1].push(connection('open'), ...shown, fresh);
    await settle();
    clock.runFrame();
    expect(feed.state).toBe('live');
    expect(timeline.taskCount).toBe(2);
    expect(timeline.rows.filter((row) => row.kind === 'status')).toHaveLength(3);
  });

  it('Reconnect before anything was shown is a fresh start, with no gap banner', async () => {
    const { feed, channels, timeline } = setup();
    void feed.start();
    channels[0].fail(new StreamError('retries-exhausted', 'gave up', { method: 'murmur.WatchSession' }));
    await settle();
    void feed.reconnect();
    expect(channels).toHaveLength(2);
    expect(timeline.banners).toHaveLength(0);
  });
});
