import { describe, expect, it } from 'vitest';
import { formatTime, TimeModeSetting } from '../src/lib/time/time-mode.svelte';

const AT = '2026-11-29T15:01:56.066Z';

describe('formatTime', () => {
  it('reads a time as relative, local wall time or UTC', () => {
    expect(formatTime(AT, 'relative', Date.parse(AT) + 12_000)).toBe('12 s ago');
    expect(formatTime(AT, 'utc', 0)).toBe('2026-11-29 15:01:56.066 UTC');
    expect(formatTime(AT, 'local', 0)).toMatch(/^2026-11-\d\d \d\d:\d\d:56\.066 local$/);
  });
});

describe('TimeModeSetting', () => {
  it('keeps the choice in storage and reads it back; ignores a stored value it does not know', () => {
    const kept = new Map<string, string>();
    const storage = { getItem: (k: string) => kept.get(k) ?? null, setItem: (k: string, v: string) => void kept.set(k, v) };
    const first = new TimeModeSetting(storage);
    expect(first.mode).toBe('relative');
    first.set('utc');
    expect(new TimeModeSetting(storage).mode).toBe('utc');
    kept.set('murmur-console.time-mode', 'sideways');
    expect(new TimeModeSetting(storage).mode).toBe('relative');
  });
});
