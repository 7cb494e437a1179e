// sqlite3's native module is built here, not by `npm ci`: the repository's .npmrc has npm run no dependency's install
// script, so the minute of compiling SQLite is not spent before anything else can start (`npm test` runs this in the
// background while it lints and builds; docs/decisions.md, "The test run"). It is built for the Node that runs this,
// against that Node's N-API version. N-API is forward compatible only: a build for N-API 9 (Node 20) loads on Node 22
// and 24, but a build for N-API 10 (Node 22.14 and later, 24) makes Node 20 crash with a segmentation fault as it loads
// (docs/decisions.md, "Node versions"). Before the door loads sqlite3 (bin/mur.js, `npm start`, the door's tests), this
// reads which N-API the build targets from its build/config.gypi; a build this Node cannot load, or none, is built for
// this Node with `npm rebuild sqlite3`, saying so, instead of crashing. One process builds at a time (a lock file
// beside the package); the others wait for it.
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, realpathSync, unlinkSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const DOOR = fileURLToPath(new URL('..', import.meta.url));
const REPO = path.resolve(DOOR, '../..');

/**
 * Whether the build whose config.gypi reads `config` (null: no build) loads on a Node offering N-API `napi`:
 * `{ ok: true }`, or `{ ok: false, why }` naming what was found.
 */
export function sqlite3BuildVerdict(config, napi) {
  if (config === null) return { ok: false, why: 'it has no native build' };
  const built = /"napi_build_version":\s*"?(\d+)"?/.exec(config)?.[1];
  const abi = /"node_module_version":\s*(\d+)/.exec(config)?.[1];
  if (built === undefined) return { ok: false, why: 'its build names no N-API version' };
  if (Number(built) <= napi) return { ok: true };
  return { ok: false, why: `it was built for N-API ${built}${abi ? ` (Node ABI ${abi})` : ''}, and this Node offers N-API ${napi}: loading it would crash` };
}

/** How long a start waits for another process's rebuild of sqlite3 before it gives up. */
const REBUILD_WAIT_MS = 10 * 60 * 1000;

/** Sleeps `ms` without an event loop (bin/mur.js checks the build before it loads anything). */
const sleepSync = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** Whether process `pid` is alive (a lock whose holder died is stale). */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/**
 * Takes the rebuild lock (`lock`, a file holding the rebuilding process's pid), waiting while another live process holds
 * it: `npm test` rebuilds sqlite3 in the background while the build runs, and a `mur` the build starts must wait for
 * that rebuild, not start a second one in the same folder. Returns a release function, or null after REBUILD_WAIT_MS.
 */
export function takeRebuildLock(lock, log, waitMs = REBUILD_WAIT_MS) {
  const until = Date.now() + waitMs;
  let said = false;
  for (;;) {
    try {
      const fd = openSync(lock, 'wx', 0o644);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => unlinkSync(lock);
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
    const holder = Number(readFileSync(lock, 'utf8') || 0);
    if (holder > 0 && !alive(holder)) {
      unlinkSync(lock);
      continue;
    }
    if (Date.now() > until) return null;
    if (!said) log(`mur: waiting for process ${holder} to finish rebuilding sqlite3 (${lock})…`);
    said = true;
    sleepSync(250);
  }
}

/** sqlite3's folder as the door resolves it, and its build's config.gypi text (null when there is no build). */
function installedBuild() {
  const dir = path.dirname(createRequire(path.join(DOOR, 'package.json')).resolve('sqlite3/package.json'));
  const config = path.join(dir, 'build', 'config.gypi');
  const binary = path.join(dir, 'build', 'Release', 'node_sqlite3.node');
  return { dir, config: existsSync(config) && existsSync(binary) ? readFileSync(config, 'utf8') : null };
}

/** The npm this Node can run: the one running us, else the one on PATH. */
function npmCli() {
  if (process.env.npm_execpath?.endsWith('.js')) return process.env.npm_execpath;
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const candidate = path.join(dir || '.', 'npm');
    if (existsSync(candidate)) return realpathSync(candidate);
  }
  return null;
}

/**
 * Rebuilds sqlite3 for this Node when its build cannot load here. Returns true when the build is usable (it was, or
 * the rebuild made it so); prints why and how to fix it otherwise.
 */
export function ensureSqlite3Build(log = (line) => process.stderr.write(`${line}\n`)) {
  const napi = Number(process.versions.napi);
  if (sqlite3BuildVerdict(installedBuild().config, napi).ok) return true;
  const release = takeRebuildLock(path.join(installedBuild().dir, '.murmur-rebuild.lock'), log);
  if (release === null) {
    log(
      `mur: another process has been rebuilding sqlite3 for ${REBUILD_WAIT_MS / 60_000} minutes. Run, in ${REPO}:   npm rebuild sqlite3 --ignore-scripts=false`,
    );
    return false;
  }
  try {
    // Another process may have built it while this one waited.
    const verdict = sqlite3BuildVerdict(installedBuild().config, napi);
    return verdict.ok || rebuild(verdict, log);
  } finally {
    release();
  }
}

/** `npm rebuild sqlite3` for this Node, saying why; true when it gave a module this Node can load. */
function rebuild(verdict, log) {
  log(`mur: sqlite3's native module cannot load on this Node (${process.version}): ${verdict.why}.`);
  log('mur: building it for this Node with `npm rebuild sqlite3` (about a minute on two cores)…');
  const cli = npmCli();
  // node-gyp builds against the headers of the Node that runs it: this one, first on PATH. A Node from the npm
  // registry's `node` package carries its headers beside its binary (include/node), where node-gyp does not look.
  // JOBS=max: node-gyp compiles the binding beside the SQLite amalgamation, on every core.
  const home = path.resolve(path.dirname(process.execPath), '..');
  const env = { ...process.env, PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? ''}`, JOBS: process.env.JOBS ?? 'max' };
  if (existsSync(path.join(home, 'include', 'node', 'node_api.h'))) env.npm_config_nodedir = home;
  // --ignore-scripts=false: the repository's .npmrc has npm run no dependency's install script (npm ci builds nothing);
  // this is the one that runs, asked for by name.
  const run =
    cli === null
      ? null
      : spawnSync(process.execPath, [cli, 'rebuild', 'sqlite3', '--ignore-scripts=false', '--no-audit', '--no-fund'], {
          cwd: REPO,
          env,
          stdio: ['ignore', 'inherit', 'inherit'],
        });
  const after = sqlite3BuildVerdict(installedBuild().config, Number(process.versions.napi));
  if (run !== null && run.status === 0 && after.ok) {
    log(`mur: sqlite3 built for Node ${process.version}.`);
    return true;
  }
  log(
    `mur: the build did not give a module this Node can load${cli === null ? ' (no npm found)' : ''}. Run, in ${REPO}, with this Node first on PATH:   npm rebuild sqlite3 --ignore-scripts=false`,
  );
  return false;
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exit(ensureSqlite3Build() ? 0 : 1);
}
