import { describe, expect, it } from 'vitest';
import { ReplayFilter } from '../src/lib/timeline/replay-filter';
import { status, T1, T2 } from './support/events';

describe('ReplayFilter', () => {
  it('drops nothing until a Reconnect, then drops the events already shown', () => {
    const filter = new ReplayFilter(8);
    const a = status(T1, 'TASK_STATE_SUBMITTED');
    const b = status(T1, 'TASK_STATE_WORKING', 'inference turn 1');
    expect(filter.isRepeat(a)).toBe(false);
    expect(filter.isRepeat(b)).toBe(false);
    expect(filter.isRepeat(structuredClone(a))).toBe(false);
    filter.expectReplay();
    expect(filter.isRepeat(structuredClone(a))).toBe(true);
    expect(filter.isRepeat(structuredClone(b))).toBe(true);
    // Same id, other task or other content: not a repeat (ids are labels counted per task).
    expect(filter.isRepeat({ ...a, taskId: T2 })).toBe(false);
    expect(filter.isRepeat(status(T2, 'TASK_STATE_SUBMITTED'))).toBe(false);
  });

  it('checks only a window of events after the Reconnect, and forgets on clear()', () => {
    const filter = new ReplayFilter(2);
    const a = status(T1, 'TASK_STATE_SUBMITTED');
    filter.isRepeat(a);
    filter.expectReplay();
    filter.isRepeat(status(T2, 'TASK_STATE_SUBMITTED'));
    filter.isRepeat(status(T2, 'TASK_STATE_WORKING'));
    expect(filter.isRepeat(a)).toBe(false);
    filter.clear();
    filter.expectReplay();
    expect(filter.isRepeat(a)).toBe(false);
  });
});
