#!/usr/bin/env node
// `npm test`: lint, the import, unused-export, engines and dead-export (knip) checks, `npm run build` (sqlite3's native
// module built beside them), then every
// package's test suite and the runs on Node 22 and 24 (scripts/node-lines.mjs) through turbo (turbo.json), and at the end one
// table of the wall time each step and each suite took, so the next slow suite shows in the run that made it slow
// (issue 35). A failing step stops the run there, as `a && b` would; a failing
// suite fails the run after the table. Arguments go to turbo's test run (`npm test -- --filter=@murmur/door`).
//
// The build is its own step, `npm run build`, so the door's bundle is marked as new as the build that made it
// (apps/door/scripts/mark-bundle-current.mjs: a turbo cache hit restores dist/src and dist/bundle in no set order, and
// mur then ran the unbundled code); the test run's builds are then cache hits whose outputs are in place.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => path.join(ROOT, 'node_modules/.bin', name);

/**
 * The light suites (protocol, client, console, the API reference) two at a time, beside the example's artifacts
 * (`example-artifacts`, the root task that needs a `mur`, so waits for sqlite3's build: below); then the door's suite, the
 * end-to-end suite, and the runs on Node 22 and 24 (scripts/node-lines.mjs, the `test:node-lines` root task), one
 * after another (turbo.json). Each of the three keeps both cores busy on its own (the door's runs two files more than
 * the cores, Playwright three workers): run side by side they took the same CPU time, so no less wall time, at a
 * load of 15 to 28 on two cores, where tests that time what they see failed for want of CPU. A suite that fails does
 * not stop the ones after it (--continue=always): every suite runs and reports its counts, and the run fails.
 */
const TURBO = ['run', 'test', 'test:node-lines', '--concurrency=3', '--continue=always', '--summarize'];

const steps = [
  { name: 'lint and format (biome check)', command: bin('biome'), args: ['check', '.'] },
  { name: 'import checks', command: process.execPath, args: ['scripts/check-imports.mjs'] },
  { name: 'unused exports', command: process.execPath, args: ['scripts/check-unused-exports.mjs'] },
  { name: 'engines (check-engines)', command: process.execPath, args: ['scripts/check-engines.mjs'] },
  { name: 'dead exports (knip)', command: bin('knip'), args: ['--no-progress', '--include', 'exports,types'] },
  // `npm run build` but the example's artifacts: those need a `mur`, so sqlite3's build; turbo runs them beside the light suites.
  { name: 'build (npm run build:code)', command: 'npm', args: ['run', 'build:code', '--silent'] },
];

const rows = [];
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

function table(turboStarted) {
  for (const task of turboTasks(turboStarted)) rows.push(task);
  const width = Math.max(...rows.map((r) => r.name.length));
  console.log('\nnpm test, wall time of each step:');
  for (const row of rows) console.log(`  ${row.name.padEnd(width)}  ${seconds(row.ms).padStart(8)}${row.note ? `  ${row.note}` : ''}`);
  console.log(`  ${'whole run'.padEnd(width)}  ${seconds(Date.now() - started).padStart(8)}`);
}

/** Each task of the turbo run that began at `since`, from its run summary (.turbo/runs/<id>.json), by start time. */
function turboTasks(since) {
  const dir = path.join(ROOT, '.turbo/runs');
  if (since === undefined || !existsSync(dir)) return [];
  const newest = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => path.join(dir, f))
    .filter((f) => statSync(f).mtimeMs >= since)
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
  if (newest === undefined) return [];
  const summary = JSON.parse(readFileSync(newest, 'utf8'));
  return summary.tasks
    .filter((t) => t.execution?.startTime)
    .sort((a, b) => a.execution.startTime - b.execution.startTime)
    .map((t) => ({
      name: `  ${t.taskId}`,
      ms: t.execution.endTime - t.execution.startTime,
      note: t.cache?.status === 'HIT' ? 'cached' : t.execution.exitCode === 0 ? '' : `exit ${t.execution.exitCode}`,
    }));
}

const started = Date.now();
// The Node 22 and 24 binaries are installed while lint and the build run (nothing once npm's cache folder holds them):
// a download and an unpack, mostly waiting on the network and the disk, with no timing check to disturb.
const binaries = new Promise((resolve) => {
  const child = spawn(process.execPath, ['scripts/node-lines.mjs', '--install'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  child.on('close', resolve);
});
// sqlite3's native module is built while lint and the build run (after `npm ci`, which builds nothing: .npmrc): SQLite
// is one file that compiles on one core for about a minute, the rest going on beside it. Its output goes to a file,
// shown only if it fails (a pipe would fill while the steps below hold the event loop, and stall the compiler); a `mur`
// started meanwhile waits for it (apps/door/scripts/ensure-native.mjs holds a lock while it builds).
const sqlite3Log = path.join(mkdtempSync(path.join(os.tmpdir(), 'murmur-sqlite3-')), 'build.log');
const sqlite3 = new Promise((resolve) => {
  const t0 = Date.now();
  const out = openSync(sqlite3Log, 'w');
  const child = spawn(process.execPath, ['apps/door/scripts/ensure-native.mjs'], { cwd: ROOT, stdio: ['ignore', out, out] });
  closeSync(out);
  // Ahead of the rest (nice -5, which its compiler inherits): the light suites then share the other core and finish
  // within the compile's minute, not stretch it. Only root may raise a priority; anyone else builds at the usual one.
  try {
    os.setPriority(child.pid, -5);
  } catch {}
  child.on('close', (code) => resolve({ code, ms: Date.now() - t0, output: readFileSync(sqlite3Log, 'utf8') }));
});
for (const step of steps) {
  const t0 = Date.now();
  const run = spawnSync(step.command, step.args, { cwd: ROOT, stdio: 'inherit' });
  rows.push({ name: step.name, ms: Date.now() - t0, note: run.status === 0 ? '' : 'failed' });
  if (run.status !== 0) {
    table();
    process.exit(run.status ?? 1);
  }
}
// The Node 22 and 24 runs install what is missing themselves; they start only after the door's suite, by when this
// has long ended. The row is the time the run waited for it beyond lint and the build.
const waited = Date.now();
await binaries;
rows.push({ name: 'waiting for the Node 22 and 24 binaries', ms: Date.now() - waited, note: '' });
const turboStarted = Date.now();
// spawnSync would hold the event loop, and with it the end of sqlite3's build above: the suites' child is awaited.
const turbo = await new Promise((resolve) => {
  spawn(bin('turbo'), [...TURBO, ...process.argv.slice(2)], { cwd: ROOT, stdio: 'inherit' }).on('close', (status) => resolve({ status }));
});
rows.push({ name: 'turbo: suites', ms: Date.now() - turboStarted, note: turbo.status === 0 ? '' : 'failed' });
const built = await sqlite3;
rows.push({ name: "sqlite3's native build (from the start, beside the rest)", ms: built.ms, note: built.code === 0 ? '' : 'failed' });
if (built.code !== 0) process.stderr.write(`\nsqlite3's native build failed:\n${built.output}`);
rmSync(path.dirname(sqlite3Log), { recursive: true, force: true });
table(turboStarted);
process.exit(turbo.status === 0 && built.code === 0 ? 0 : (turbo.status ?? 1));
