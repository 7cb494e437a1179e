import { describe, expect, it } from 'vitest';
import { type HashWindow, Router } from '../src/lib/routing/router.svelte';
import { href, parseRoute } from '../src/lib/routing/routes';

describe('parseRoute / href', () => {
  it('reads the three pages', () => {
    expect(parseRoute('')).toEqual({ name: 'capsules' });
    expect(parseRoute('#/')).toEqual({ name: 'capsules' });
    expect(parseRoute('#/running')).toEqual({ name: 'running' });
    expect(parseRoute('#/door/127.0.0.1:41873')).toEqual({ name: 'door', door: '127.0.0.1:41873' });
    expect(parseRoute('#/door/127.0.0.1:41873/')).toEqual({ name: 'door', door: '127.0.0.1:41873' });
    expect(parseRoute('#/door/127.0.0.1:41873/tasks/tsk_01')).toEqual({ name: 'task', door: '127.0.0.1:41873', taskId: 'tsk_01' });
    expect(parseRoute('#/door/[::1]:41873')).toEqual({ name: 'door', door: '[::1]:41873' });
    expect(parseRoute('#/door/127.0.0.1:41873/files')).toEqual({ name: 'files', door: '127.0.0.1:41873', folder: [] });
    expect(parseRoute('#/door/127.0.0.1:41873/files/docs/img/')).toEqual({ name: 'files', door: '127.0.0.1:41873', folder: ['docs', 'img'] });
  });

  it('answers not-found for anything else', () => {
    expect(parseRoute('#/elsewhere')).toEqual({ name: 'not-found', path: '/elsewhere' });
    expect(parseRoute('#/door/127.0.0.1:1/tasks')).toEqual({ name: 'not-found', path: '/door/127.0.0.1:1/tasks' });
    expect(parseRoute('#/door/a/tasks/b/c')).toMatchObject({ name: 'not-found' });
    expect(parseRoute('#/door/%E0%A4%A')).toMatchObject({ name: 'not-found' });
    expect(parseRoute('#/running/more')).toEqual({ name: 'not-found', path: '/running/more' });
  });

  it('writes links that read back to the same route', () => {
    const routes = [
      { name: 'capsules' },
      { name: 'door', door: '127.0.0.1:41873' },
      { name: 'door', door: '[::1]:41873' },
      { name: 'task', door: '127.0.0.1:41873', taskId: 'tsk_0199c4e2f1b7712a9d3e4f5061728394' },
      { name: 'task', door: '127.0.0.1:1', taskId: 'odd/id with space' },
      { name: 'files', door: '127.0.0.1:1', folder: [] },
      { name: 'files', door: '127.0.0.1:1', folder: ['a b', 'c/d', 'é'] },
      { name: 'running' },
    ] as const;
    for (const route of routes) expect(parseRoute(href(route))).toEqual(route);
    expect(href({ name: 'door', door: '127.0.0.1:41873' })).toBe('#/door/127.0.0.1:41873');
  });
});

describe('Router', () => {
  function fakeWindow(hash: string) {
    const listeners = new Set<() => void>();
    const win: HashWindow & { fire(): void; listeners: Set<() => void> } = {
      location: { hash },
      addEventListener: (_type, listener) => listeners.add(listener),
      removeEventListener: (_type, listener) => listeners.delete(listener),
      fire: () => {
        for (const l of listeners) l();
      },
      listeners,
    };
    return win;
  }

  it('starts from the current hash and follows hashchange', () => {
    const win = fakeWindow('#/door/127.0.0.1:1');
    const router = new Router(win);
    expect(router.route).toEqual({ name: 'door', door: '127.0.0.1:1' });
    win.location.hash = '#/door/127.0.0.1:1/tasks/tsk_9';
    win.fire();
    expect(router.route).toEqual({ name: 'task', door: '127.0.0.1:1', taskId: 'tsk_9' });
  });

  it('go() sets the hash (a history entry) and stops listening on destroy', () => {
    const win = fakeWindow('');
    const router = new Router(win);
    router.go({ name: 'door', door: '127.0.0.1:2' });
    expect(win.location.hash).toBe('#/door/127.0.0.1:2');
    win.fire();
    expect(router.route).toEqual({ name: 'door', door: '127.0.0.1:2' });
    router.destroy();
    expect(win.listeners.size).toBe(0);
  });
});
