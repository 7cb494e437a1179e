// sqlite3's native module is built by `npm ci` for the Node that ran it, against that Node's N-API version. N-API is
// forward compatible only: a build for N-API 9 (Node 20) loads on Node 22 and 24, but a build for N-API 10 (Node 22.14
// and later, 24) makes Node 20 crash with a segmentation fault as it loads (docs/decisions.md, "Node versions"). Before
// the door loads sqlite3 (bin/mur.js, `npm start`, the door's tests), this reads which N-API the build targets from
// its build/config.gypi; a build this Node cannot load, or none, is rebuilt for this Node with `npm rebuild sqlite3`,
// saying so, instead of crashing.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
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
  const { config } = installedBuild();
  const verdict = sqlite3BuildVerdict(config, Number(process.versions.napi));
  if (verdict.ok) return true;
  log(`mur: sqlite3's native module cannot load on this Node (${process.version}): ${verdict.why}.`);
  log('mur: rebuilding it for this Node with `npm rebuild sqlite3` (about a minute on two cores)…');
  const cli = npmCli();
  // node-gyp builds against the headers of the Node that runs it: this one, first on PATH. A Node from the npm
  // registry's `node` package carries its headers beside its binary (include/node), where node-gyp does not look.
  const home = path.resolve(path.dirname(process.execPath), '..');
  const env = { ...process.env, PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? ''}` };
  if (existsSync(path.join(home, 'include', 'node', 'node_api.h'))) env.npm_config_nodedir = home;
  const run =
    cli === null
      ? null
      : spawnSync(process.execPath, [cli, 'rebuild', 'sqlite3', '--no-audit', '--no-fund'], { cwd: REPO, env, stdio: ['ignore', 'inherit', 'inherit'] });
  const after = sqlite3BuildVerdict(installedBuild().config, Number(process.versions.napi));
  if (run !== null && run.status === 0 && after.ok) {
    log(`mur: sqlite3 rebuilt for Node ${process.version}.`);
    return true;
  }
  log(
    `mur: the rebuild did not give a module this Node can load${cli === null ? ' (no npm found)' : ''}. Run, in ${REPO}, with this Node first on PATH:   npm rebuild sqlite3`,
  );
  return false;
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exit(ensureSqlite3Build() ? 0 : 1);
}
