/// <reference types="vitest/config" />
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { svelteTesting } from '@testing-library/svelte/vite';
import { defineConfig } from 'vite';

// `mur console` serves the built app and answers /api (sessions + the door proxy) at the same origin.
// Under `vite dev` and `vite preview`, /api goes to a running `mur console` instead (default port 7070).
const api = `http://127.0.0.1:${process.env.MURMUR_CONSOLE_API ?? 7070}`;
// No buffering or timeouts on the proxy: streams (text/event-stream) stay open for as long as the door writes.
const proxy = { '/api': { target: api, changeOrigin: false, timeout: 0, proxyTimeout: 0 } };

export default defineConfig({
  // autoCleanup off: test/support/dom-cleanup.ts does the same cleanup, only in the files that have a DOM.
  plugins: [svelte(), svelteTesting({ autoCleanup: false })],
  // Relative asset URLs: the built app works wherever `mur console` mounts it.
  base: './',
  server: { host: '127.0.0.1', proxy },
  preview: { host: '127.0.0.1', proxy },
  build: { target: 'es2022', sourcemap: true },
  test: {
    // Most files test plain modules and render nothing: they run in node. A file that renders a component or needs the
    // browser's storage names jsdom in its first line (`// @vitest-environment jsdom`); setting up jsdom for every file
    // was half of this suite's time.
    environment: 'node',
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/support/dom-cleanup.ts'],
    // Vitest's default is one worker fewer than the cores: a single worker on a two-core machine.
    maxWorkers: 2,
    // A hang's bound, not a speed check: a component rendered in jsdom beside the end-to-end suite's browsers on two
    // cores took 6.5 s once, past Vitest's 5 s default. How fast the console renders is the bench's (docs/benchmarks.md).
    testTimeout: 30_000,
  },
});
