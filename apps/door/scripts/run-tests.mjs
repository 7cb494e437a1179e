#!/usr/bin/env node
// The door's test runner (`npm test -w @murmur/door`): every unit spec beside its source, at any depth
// (dist/src/**/*.spec.js), and every black-box suite (dist/test/*.test.js), handed to one `node --test
// --test-concurrency=2`. Node 20's `node --test` expands no globs itself and a shell's `dist/src/*/*.spec.js` is one
// folder deep, so a spec under agent/drivers/ would never have run, silently; this walks the folders instead.
//
// It runs tsc's output, so it judges that output by its sources: a compiled file whose source is gone (moved or
// deleted since the last build) is stale and left out, with a note on stderr; a source spec with no compiled file
// (not built yet) is an error, not a silent skip. Arguments go to node --test before the files
// (`npm test -w @murmur/door -- --test-name-pattern=…`); `--list` prints the files it would run, one a line, and
// runs nothing.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

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

/** What the runner runs, relative to apps/door: { files, stale (compiled, source gone), unbuilt (source, not compiled) }. */
export function testFiles() {
  const compiled = [...filesUnder('dist/src', '.spec.js', true), ...filesUnder('dist/test', '.test.js', false)];
  const sources = [...filesUnder('src', '.spec.ts', true), ...filesUnder('test', '.test.ts', false)];
  const built = new Set(compiled.map(sourceOf));
  return {
    files: compiled.filter((f) => existsSync(path.join(DOOR, sourceOf(f)))),
    stale: compiled.filter((f) => !existsSync(path.join(DOOR, sourceOf(f)))),
    unbuilt: sources.filter((s) => !built.has(s)),
  };
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const { files, stale, unbuilt } = testFiles();
  for (const file of stale) console.error(`run-tests: ${file} is left out: its source ${sourceOf(file)} is gone (a stale build output)`);
  for (const source of unbuilt) console.error(`run-tests: ${source} has no compiled test under dist/; run npm run build -w @murmur/door`);
  if (args.includes('--list')) {
    for (const file of files) console.log(file);
    process.exit(0);
  }
  if (unbuilt.length > 0) process.exit(1);
  const child = spawn(process.execPath, ['--test', '--test-concurrency=2', ...args, ...files], { cwd: DOOR, stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code) => process.exit(code ?? 1));
}
