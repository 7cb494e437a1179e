// Builds examples/artifacts (docs/artifacts.md): its WASM tool from its source — greet.wat, componentized against the
// runtime's WIT package wit/murmur.wit by the Bytecode Alliance's wasm-tools compiled to JavaScript
// (@bytecodealliance/jco-transpile, from the npm registry: no Rust toolchain, no crate) — then publishes the example's
// three artifacts into its project store and pins the one it declares, with the mur this build made. Run by the root
// `npm run build` after turbo, and by the example's test; it does nothing when everything is newer than its sources.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const door = fileURLToPath(new URL('..', import.meta.url));
const example = path.join(door, '..', '..', 'examples', 'artifacts');
const greet = path.join(example, 'artifacts', 'greet');
const wat = path.join(greet, 'greet.wat');
const wit = path.join(door, 'wit', 'murmur.wit');
const component = path.join(greet, 'greet.wasm');
const lock = path.join(example, 'murmur.lock');
const store = path.join(example, '.murmur', 'store');
const mur = path.join(door, 'bin', 'mur.js');

const mtime = (file) => (existsSync(file) ? statSync(file).mtimeMs : 0);
const sources = [wat, wit, ...['greet', 'line-count', 'release-notes'].flatMap((a) => [path.join(example, 'artifacts', a, 'murmur.yaml')])];
const newestSource = Math.max(
  ...sources.map(mtime),
  mtime(path.join(example, 'artifacts', 'line-count', 'bin', 'line-count')),
  mtime(path.join(example, 'artifacts', 'release-notes', 'SKILL.md')),
);
if (mtime(component) >= newestSource && mtime(lock) >= mtime(component) && existsSync(store)) process.exit(0);

const fail = (message) => {
  console.error(`build: examples/artifacts: ${message}`);
  process.exit(1);
};
if (!existsSync(path.join(door, 'dist', 'bundle', 'cli', 'wasm-worker.js'))) fail('the door is not built yet (apps/door/dist/bundle): run npm run build');

let tools;
try {
  tools = await import('@bytecodealliance/jco-transpile/wasm-tools');
} catch (error) {
  fail(`its WASM tool is built with @bytecodealliance/jco-transpile, which cannot be loaded (${error.message}): run npm ci`);
}
let bytes;
try {
  const core = await tools.parse(readFileSync(wat, 'utf8'));
  const embedded = await tools.componentEmbed({ binary: core, witSource: readFileSync(wit, 'utf8'), world: 'tool' });
  bytes = await tools.componentNew(embedded);
} catch (error) {
  fail(`greet.wat did not build into a component: ${error?.message ?? error}`);
}
writeFileSync(component, bytes);

const run = (...args) => {
  try {
    return execFileSync(process.execPath, [mur, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    fail(`mur ${args.join(' ')} failed: ${error.stderr || error.message}`);
  }
};
// The store and the pins are the build's: made again from the sources each time they change.
rmSync(store, { recursive: true, force: true });
rmSync(lock, { force: true });
for (const artifact of ['greet', 'line-count', 'release-notes']) run('publish', path.join(example, 'artifacts', artifact), '--capsule', example, '--json');
run('pull', 'demo/greet', '--capsule', example, '--json');
console.log(`build: examples/artifacts: greet.wasm (${bytes.length} bytes), 3 artifacts in its project store, demo/greet pinned`);
