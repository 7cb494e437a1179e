#!/usr/bin/env node
// The `mur` command: a committed, executable entry so npm links it at install, before anything is built. It runs the
// built CLI — the bundle `npm run build` makes (scripts/bundle.mjs) — or says how to build it. When tsc's output is
// newer than the bundle (tsc ran alone), it runs tsc's output and says so, rather than yesterday's code. A sqlite3
// build this Node cannot load (made by another Node's `npm ci`) is rebuilt first, saying so (scripts/ensure-native.mjs).
import { existsSync, statSync } from 'node:fs';
import module from 'node:module';
import { homedir } from 'node:os';
import path from 'node:path';
import { ensureSqlite3Build } from '../scripts/ensure-native.mjs';

const bundled = new URL('../dist/bundle/cli/main.js', import.meta.url);
const compiled = new URL('../dist/src/cli/main.js', import.meta.url);
if (!existsSync(compiled)) {
  process.stderr.write('mur: the door is not built yet: run `npm run build` in the repository first\n');
  process.exit(2);
}
if (!ensureSqlite3Build()) process.exit(1);
let cli = bundled;
if (!existsSync(bundled) || statSync(bundled).mtimeMs < statSync(compiled).mtimeMs) {
  process.stderr.write('mur: apps/door/dist/bundle is missing or older than dist/src (tsc ran alone); running dist/src: `npm run build` bundles it\n');
  cli = compiled;
}
// Node 22.1+ keeps V8's compiled code of the bundle's chunks on disk and the next start reads it instead of compiling
// again; NODE_DISABLE_COMPILE_CACHE=1 turns it off, NODE_COMPILE_CACHE picks the folder. Not Node's default folder in
// the shared temp folder: code read from a folder another user could have made first would run as this one (root, for
// a door run as root), so it is the user's own cache folder. Node 20 has no such cache for ES modules, and this does
// nothing there (docs/benchmarks.md, "Compile cache").
module.enableCompileCache?.(
  process.env.NODE_COMPILE_CACHE || path.join(process.env.XDG_CACHE_HOME || path.join(homedir(), '.cache'), 'murmur', 'node-compile-cache'),
);
await import(cli.href);
