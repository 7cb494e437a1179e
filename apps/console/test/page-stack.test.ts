import { describe, expect, it } from 'vitest';
import { PageTokenStack } from '../src/lib/tasks/page-stack';

describe('PageTokenStack', () => {
  it('starts on the first page with no previous', () => {
    const stack = PageTokenStack.first();
    expect(stack.current).toBe('');
    expect(stack.pageNumber).toBe(1);
    expect(stack.hasPrevious).toBe(false);
  });

  it('goes forward with each nextPageToken and back through the tokens it came through', () => {
    const third = PageTokenStack.first().forward('t2').forward('t3');
    expect(third.current).toBe('t3');
    expect(third.pageNumber).toBe(3);
    const second = third.back();
    expect(second.current).toBe('t2');
    expect(second.pageNumber).toBe(2);
    const first = second.back();
    expect(first.current).toBe('');
    expect(first.hasPrevious).toBe(false);
  });

  it('stays put on "" (no next page) and before the first page', () => {
    const first = PageTokenStack.first();
    expect(first.forward('')).toBe(first);
    expect(first.back()).toBe(first);
  });

  it('is immutable: moving returns a new stack', () => {
    const first = PageTokenStack.first();
    const second = first.forward('t2');
    expect(first.current).toBe('');
    expect(second).not.toBe(first);
    second.back();
    expect(second.current).toBe('t2');
  });
});
