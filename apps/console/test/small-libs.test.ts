import { TASK_STATES } from '@murmur/protocol';
import { describe, expect, it } from 'vitest';
import { stateLabel, stateTone } from '../src/lib/tasks/task-states';
import { exactTime, formatDuration, localInputToTimestamp, relativeTime } from '../src/lib/time/time';
import { cleanToken, TokenStore } from '../src/lib/door/tokens';

describe('time', () => {
  const now = Date.parse('2026-11-29T15:00:00.000Z');
  it('says how long ago, or ahead, at a glance', () => {
    expect(relativeTime(now - 2_000, now)).toBe('just now');
    expect(relativeTime(now - 12_000, now)).toBe('12 s ago');
    expect(relativeTime(new Date(now - 3 * 60_000), now)).toBe('3 min ago');
    expect(relativeTime('2026-11-29T13:00:00.000Z', now)).toBe('2 h ago');
    expect(relativeTime(now - 4 * 86_400_000, now)).toBe('4 d ago');
    expect(relativeTime(now + 90_000, now)).toBe('in 1 min');
    expect(relativeTime('not a time', now)).toBe('unknown time');
  });

  it('gives the exact time with the UTC timestamp, and durations in words', () => {
    expect(exactTime('2026-11-29T15:01:56.063Z')).toMatch(/ local · 2026-11-29T15:01:56\.063Z$/);
    expect(exactTime('garbage')).toBe('garbage');
    expect([850, 1_234, 12_000, 184_000, 7_500_000].map(formatDuration)).toEqual(['850 ms', '1.2 s', '12 s', '3 min 4 s', '2 h 5 min']);
    expect(formatDuration(-1)).toBe('—');
    expect(formatDuration(Number.NaN)).toBe('—');
  });

  it('reads a datetime-local value as a UTC timestamp', () => {
    expect(localInputToTimestamp('')).toBeNull();
    expect(localInputToTimestamp('nope')).toBeNull();
    expect(localInputToTimestamp('2026-11-29T15:00')).toBe(new Date('2026-11-29T15:00').toISOString());
  });
});

describe('tokens', () => {
  it('keeps one token per door in the given storage, and survives a storage that throws', () => {
    const map = new Map<string, string>();
    const storage = {
      getItem: (k: string) => map.get(k) ?? null,
      setItem: (k: string, v: string) => map.set(k, v),
      removeItem: (k: string) => map.delete(k),
    } as unknown as Storage;
    const store = new TokenStore(storage);
    store.set('127.0.0.1:1', 'a');
    store.set('127.0.0.1:2', 'b');
    expect([store.get('127.0.0.1:1'), store.get('127.0.0.1:2'), store.get('127.0.0.1:3')]).toEqual(['a', 'b', null]);
    store.remove('127.0.0.1:1');
    expect(store.get('127.0.0.1:1')).toBeNull();
    const broken = new TokenStore({
      getItem: () => {
        throw new Error('blocked');
      },
      setItem: () => {
        throw new Error('full');
      },
      removeItem: () => {
        throw new Error('blocked');
      },
    } as unknown as Storage);
    broken.set('d', 't');
    broken.remove('d');
    expect(broken.get('d')).toBeNull();
    expect(new TokenStore(null).get('d')).toBeNull();
  });

  it('cleans a pasted token', () => {
    expect(cleanToken('  Bearer   abc.def  ')).toBe('abc.def');
    expect(cleanToken('abc')).toBe('abc');
  });
});

describe('task states', () => {
  it('has a word and a tone for every state', () => {
    for (const state of TASK_STATES) {
      expect(stateLabel(state)).toMatch(/^[a-z-]+$/);
      expect(['neutral', 'info', 'warn', 'ok', 'bad', 'muted']).toContain(stateTone(state));
    }
    expect(stateTone('TASK_STATE_FAILED')).toBe('bad');
    expect(stateLabel('TASK_STATE_INPUT_REQUIRED')).toBe('input-required');
  });
});
