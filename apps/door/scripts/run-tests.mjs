#!/usr/bin/env node
// The door's test runner (`npm test -w @murmur/door`): every unit spec beside its source, at any depth
// (dist/src/**/*.spec.js), and every black-box suite (dist/test/*.test.js), handed to one `node --test
// --test-concurrency` (the pool, below). Node 20's `node --test` expands no globs itself and a shell's `dist/src/*/*.spec.js` is one
// folder deep, so a spec under agent/drivers/ would never have run, silently; this walks the folders instead.
//
// It runs tsc's output, so it judges that output by its sources: a compiled file whose source is gone (moved or
// deleted since the last build) is stale and left out, with a note on stderr; a source spec with no compiled file
// (not built yet) is an error, not a silent skip. Arguments go to node --test before the files
// (`npm test -w @murmur/door -- --test-name-pattern=…`, or `-- --test-concurrency=2` to change the pool below); `--list`
// prints the files it would run, one a line, in the order they start, and runs nothing.
//
// The pool: two files more than there are cores (four on two), each its own process. Most black-box files spend most
// of their time waiting on their doors (a file's CPU time is a third of its wall time, measured file by file), so more
// files than cores keep the cores busy: alone on two cores, four files at a time left them idle 2% of the time. The files
// that take longest are listed first (SLOW_FIRST), but Node 20's `node --test` sorts the files it is given by name
// before it starts them, so that order reaches only `--list` (docs/decisions.md, "The test run").
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runTmpdir } from '../../../scripts/run-tmpdir.mjs';

const DOOR = fileURLToPath(new URL('..', import.meta.url));

/** Files under `dir` (relative to the door's folder) whose names end with `suffix`; `deep` descends into folders. */
function filesUnder(dir, suffix, deep) {
  const root = path.join(DOOR, dir);
  if (!existsSync(root)) return [];
  const out = [];
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    const rel = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (deep) out.push(...filesUnder(rel, suffix, deep));
    } else if (entry.name.endsWith(suffix)) out.push(rel);
  }
  return out.sort();
}

/** The source a compiled test file was built from: dist/src/a/b.spec.js ← src/a/b.spec.ts. */
export const sourceOf = (compiled) => compiled.replace(/^dist\//, '').replace(/\.js$/, '.ts');

const CONCURRENCY = availableParallelism() + 2;

/**
 * The files that took 20 s or more (of wall time, two at a time on two cores), longest first; a file missing from the
 * build is skipped. Only the order depends on this list, never what runs.
 */
const SLOW_FIRST = [
  'dist/test/cli-signal-on-announcement.test.js',
  'dist/test/agent-loop.test.js',
  // The harness files also install Claude Code and Codex on a fresh machine (about 20 s each), before their tests start.
  'dist/test/harness-codex.test.js',
  'dist/test/harness-claude-code.test.js',
  'dist/test/records-memory.test.js',
  'dist/test/telemetry-otlp.test.js',
  'dist/test/sandbox-escape.test.js',
  'dist/test/shell-lifetime.test.js',
  'dist/test/governors-providers.test.js',
  'dist/test/cli-watch.test.js',
  'dist/test/acceptance.test.js',
  'dist/test/formation-calls.test.js',
  'dist/test/formation-abandoned.test.js',
  'dist/test/background-command.test.js',
  'dist/test/formation-host.test.js',
  'dist/test/compaction.test.js',
  'dist/test/formation-faults.test.js',
  'dist/test/formation-launch.test.js',
  'dist/test/planes-peer.test.js',
  'dist/test/records-plane.test.js',
  'dist/src/tools/sandbox/bwrap-args.spec.js',
  'dist/test/client-packed-install.test.js',
];

/** `files` with SLOW_FIRST's at the front, in its order. */
const slowFirst = (files) => [...SLOW_FIRST.filter((f) => files.includes(f)), ...files.filter((f) => !SLOW_FIRST.includes(f))];

/** What the runner runs, relative to apps/door: { files, stale (compiled, source gone), unbuilt (source, not compiled) }. */
export function testFiles() {
  const compiled = [...filesUnder('dist/src', '.spec.js', true), ...filesUnder('dist/test', '.test.js', false)];
  const sources = [...filesUnder('src', '.spec.ts', true), ...filesUnder('test', '.test.ts', false)];
  const built = new Set(compiled.map(sourceOf));
  return {
    files: slowFirst(compiled.filter((f) => existsSync(path.join(DOOR, sourceOf(f))))),
    stale: compiled.filter((f) => !existsSync(path.join(DOOR, sourceOf(f)))),
    unbuilt: sources.filter((s) => !built.has(s)),
  };
}

const BUNDLED = 'dist/bundle-tests';

/**
 * The bundled unit specs' modules (scripts/bundle-tests.mjs), under dist/bundle-tests: the ~70 specs run in four
 * processes rather than one each, so a Node start and the shared modules' loading are paid four times, not ~70; four,
 * not one, so the specs that wait (a subprocess, a timer) still wait beside each other (docs/decisions.md, "The test
 * run"). Their tests and names are as before; a failure's stack names its file.
 */
export const SPECS_ENTRIES = ['unit-specs-1.js', 'unit-specs-2.js', 'unit-specs-3.js', 'unit-specs-4.js'];

/** A spec source whose hook is at its top level, outside any describe: in one process it would run for every file's tests. */
const TOP_LEVEL_HOOK = /^(?:before|after|beforeEach|afterEach)\(/m;

/**
 * `files` as run: their bundled copies (scripts/bundle-tests.mjs) while every compiled module the bundle was made from
 * is unchanged and it holds every one of `files`; else `files` as tsc wrote them, with `why` the bundle is not run.
 */
export function bundledTestFiles(files) {
  const manifest = path.join(DOOR, BUNDLED, 'inputs.json');
  if (!existsSync(manifest)) return { files, why: `${BUNDLED} is not built (npm run build -w @murmur/door bundles the tests)` };
  const { files: bundled, inputs, specs = [] } = JSON.parse(readFileSync(manifest, 'utf8'));
  const missing = files.filter((f) => !bundled.includes(f));
  if (missing.length > 0) return { files, why: `${BUNDLED} holds no ${missing[0]}: it is older than the tests` };
  for (const [input, hash] of Object.entries(inputs)) {
    const file = path.join(DOOR, input);
    if (!existsSync(file) || createHash('sha1').update(readFileSync(file)).digest('hex') !== hash)
      return { files, why: `${BUNDLED} was made from another ${input} (tsc ran since): npm run build -w @murmur/door bundles it again` };
  }
  const asked = files.filter((f) => f.startsWith('dist/src/'));
  const hooked = asked.find((f) => TOP_LEVEL_HOOK.test(readFileSync(path.join(DOOR, sourceOf(f)), 'utf8')));
  if (hooked !== undefined)
    return {
      files,
      why: `${sourceOf(hooked)} has a hook outside any describe, which in one process would run for every spec's tests: put its tests and hooks in a describe`,
    };
  // Every spec, a few to a process (SPECS_ENTRIES), else each in its own (a subset was asked for).
  const together = asked.length > 0 && asked.length === specs.length && asked.every((f) => specs.includes(f));
  const run = together ? [...SPECS_ENTRIES.map((entry) => `dist/${entry}`), ...files.filter((f) => !f.startsWith('dist/src/'))] : files;
  return { files: run.map((f) => f.replace(/^dist\//, `${BUNDLED}/`)), why: null };
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const { files: compiledFiles, stale, unbuilt } = testFiles();
  for (const file of stale) console.error(`run-tests: ${file} is left out: its source ${sourceOf(file)} is gone (a stale build output)`);
  for (const source of unbuilt) console.error(`run-tests: ${source} has no compiled test under dist/; run npm run build -w @murmur/door`);
  if (args.includes('--list')) {
    for (const file of compiledFiles) console.log(file);
    process.exit(0);
  }
  if (unbuilt.length > 0) process.exit(1);
  const { files, why } = bundledTestFiles(compiledFiles);
  if (why !== null) console.error(`run-tests: running tsc's output, not the bundled tests: ${why}`);
  // TAP on stdout, as .ci/total.mjs reads it; the slowest files on stderr at the end (scripts/file-times-reporter.mjs).
  const reporters = [
    '--test-reporter=tap',
    '--test-reporter-destination=stdout',
    `--test-reporter=${path.join(DOOR, 'scripts/file-times-reporter.mjs')}`,
    '--test-reporter-destination=stderr',
  ];
  const runTmp = runTmpdir('test');
  const child = spawn(process.execPath, ['--test', `--test-concurrency=${CONCURRENCY}`, ...reporters, ...args, ...files], {
    cwd: DOOR,
    stdio: 'inherit',
    env: { ...process.env, TMPDIR: runTmp.dir },
  });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    runTmp.remove();
    // A runner ended by a signal prints nothing of its own: say so, or the suite ends mid-file with no reason given.
    if (signal !== null) console.error(`run-tests: the test runner (node --test) was ended by ${signal}`);
    process.exit(code ?? 1);
  });
}
