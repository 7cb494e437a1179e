import { defineConfig } from '@playwright/test';

/**
 * The specs whose figures `npm run bench` reports (perf.json, perf-views.json): `npm run measure` runs them as the
 * project `measured`, one at a time, so no other worker's doors and Chromium share the two cores with them. In
 * `npm test` they run in `parallel` with every other spec, where they check what the console shows, not how fast
 * (support/fixtures.ts, `measuring`).
 */
const MEASURED = /\/(perf|perf-views|waterfall)\.spec\.ts$/;

/**
 * Debian's Chromium at `binary` (installed by scripts/ensure-chromium.mjs), or CHROMIUM_PATH's. The flags: no sandbox
 * (CI runs as root), no GPU, and no connection Chromium would make of its own (this machine kind's network is closed,
 * and each refused connection costs a retry).
 */
const chromium = (binary: string) => ({
  executablePath: process.env.CHROMIUM_PATH ?? binary,
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-dev-shm-usage',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--disable-quic',
  ],
});

/**
 * Real Chromium from Debian, headless, against real doors and `mur console` started by the fixtures. The other specs
 * run three files at a time, each worker with its own MURMUR_HOME and `mur console` (support/fixtures.ts): what one
 * worker's doors do, another's console never discovers. The specs mostly wait (on the console's polls and back-offs,
 * on their doors' tasks), so more workers than cores pay.
 */
export default defineConfig({
  testDir: './tests',
  outputDir: './test-results',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  workers: 3,
  // No Playwright trace in `measured`: recording one snapshots the page's DOM on its main thread before each action,
  // which its figures would count (on the 10,000-span trace page it put 300–450 ms between the first paint and the
  // first key answered, against 75–115 ms without). In `parallel` a trace is kept only when MURMUR_E2E_TRACE=on (below).
  //
  // `parallel` drives Chromium's headless shell (Debian's chromium-headless-shell, what Playwright itself runs headless):
  // the same Blink and V8 without the browser's windowing layer, it took a third less CPU and wall time over the
  // whole suite (667 s of CPU and 5.6 min against ~1,000 s and 8.5 min, every test passing). `measured` keeps the whole
  // browser an operator runs, so the bench's figures are the ones Chrome would show.
  projects: [
    { name: 'parallel', use: { launchOptions: chromium('/usr/bin/chromium-headless-shell') } },
    { name: 'measured', testMatch: MEASURED, workers: 1, use: { trace: 'off', launchOptions: chromium('/usr/bin/chromium') } },
  ],
  retries: 0,
  reporter: [['list'], ['html', { outputFolder: 'playwright-report', open: 'never' }]],
  use: {
    browserName: 'chromium',
    headless: true,
    screenshot: 'only-on-failure',
    // Off unless asked for (MURMUR_E2E_TRACE=on keeps a failed test's trace): recording one for every test, kept or
    // not, took a fifth of the suite's CPU (screencast frames encoded as JPEG, a DOM snapshot before each action),
    // and a CI log cannot carry the trace.zip it keeps. A failure still leaves its screenshot and error context.
    trace: process.env.MURMUR_E2E_TRACE === 'on' ? 'retain-on-failure' : 'off',
  },
});
