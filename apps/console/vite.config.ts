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
  plugins: [svelte(), svelteTesting()],
  // Relative asset URLs: the built app works wherever `mur console` mounts it.
  base: './',
  server: { host: '127.0.0.1', proxy },
  preview: { host: '127.0.0.1', proxy },
  build: { target: 'es2022', sourcemap: true },
  test: {
    environment: 'jsdom',
    include: ['test/**/*.test.ts'],
  },
});
