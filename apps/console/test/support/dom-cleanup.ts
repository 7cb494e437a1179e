/**
 * @testing-library/svelte's auto-cleanup (what its vite plugin's `autoCleanup` adds to every file), for the files that
 * run in jsdom only: after each test, pending effects settle and every rendered component is unmounted. A file in
 * node renders nothing, so it need not load the library at all.
 */
import { beforeEach } from 'vitest';

if (typeof document !== 'undefined') {
  const { act, cleanup, setup } = await import('@testing-library/svelte');
  beforeEach(async () => {
    await setup();
    return async () => {
      await act();
      cleanup();
    };
  });
}
