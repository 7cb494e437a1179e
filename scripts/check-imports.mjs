#!/usr/bin/env node
// The import graph's three rules (docs/architecture.md, "Layers" and "Tests"): inside apps/door/src every import points
// down the layer order, never up or sideways; no source file of the repository reaches itself through its imports,
// type-only imports included; and no file under apps/door/test imports the door's own source (apps/door/src): those
// are black-box tests, which use the public surfaces, while a unit's tests live beside it as *.spec.ts. Prints every
// breach and exits 1; exits 0 with one summary line otherwise.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE_ROOTS = ['packages/protocol/src', 'packages/client/src', 'apps/door/src', 'apps/console/src'];
const DOOR = 'apps/door/src';

/** apps/door/src's layers, top first; a folder may import only from layers below its own. */
const DOOR_LAYERS = [
  ['cli'],
  ['start-door.ts'],
  ['app.module.ts'],
  // What the door serves, as providers app.module.ts lists: planes, the record plane, the control surface, the fast lane, the routes.
  ['door-surface.ts'],
  ['methods', 'formations', 'control'],
  ['agent', 'streaming', 'rpc', 'planes', 'telemetry'],
  // One floor: neither imports the other; what one needs of the other is a port bound in app.module.ts.
  ['tasks', 'card', 'tools'],
  // Beside tools/ and below it (DESIGN.md, "Harnesses and artifacts"): the artifact format, stores, murmur.lock, sources.
  ['artifacts'],
  ['auth', 'console-server'],
  // The session floor: the session itself and the record's read side (the HTTP answers the record plane and mur
  // console give) above the small rooms they use, and what every room shares below them.
  ['session', 'record-reads'],
  ['records', 'paths', 'peers', 'seat', 'egress', 'usage', 'memory'],
  ['common', 'manifest'],
  // The one config reader (murmur.yaml, roster.yaml, scripts: one problem format) and the environment's settings, read
  // once at start: below every room that reads a file or a setting, the manifest's loader first; it imports no room.
  ['config'],
];
const RANK = new Map(DOOR_LAYERS.flatMap((names, i) => names.map((name) => [name, DOOR_LAYERS.length - i])));

function sourceFiles(dir) {
  const out = [];
  for (const entry of readdirSync(dir)) {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) out.push(...sourceFiles(full));
    else if (/\.(ts|svelte)$/.test(entry) && !entry.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

const SPECIFIER = /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|(?:^|[\s;])import\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm;

/** The repository files a source file imports by relative path. */
function importsOf(file) {
  const text = readFileSync(file, 'utf8');
  const targets = [];
  for (const match of text.matchAll(SPECIFIER)) {
    const spec = match[1] ?? match[2] ?? match[3];
    if (!spec.startsWith('.')) continue;
    const base = path.resolve(path.dirname(file), spec);
    const candidates = [base.replace(/\.js$/, '.ts'), base, `${base}.ts`, path.join(base, 'index.ts')];
    const found = candidates.find((c) => existsSync(c) && statSync(c).isFile());
    if (found) targets.push(found);
  }
  return targets;
}

/** The door layer a file belongs to: its first folder under apps/door/src, or its own name at the top. */
function doorLayer(file) {
  const rel = path.relative(path.join(ROOT, DOOR), file);
  if (rel.startsWith('..')) return null;
  return rel.split(path.sep)[0];
}

const DOOR_TESTS = 'apps/door/test';

/**
 * The imports of apps/door/src that files under apps/door/test still make, each with why it has not moved yet (issue
 * 35): file → the imported source files, relative to the repository. Nothing may be added here; an entry whose import
 * is gone must be removed (the check says so), so the list only shrinks.
 */
const TEST_IMPORTS_NOT_YET_MOVED = new Map([
  // Builds artifact stores as `mur publish` writes them, in-process: through `mur publish` each store would be a process.
  [
    'apps/door/test/support/artifacts.ts',
    [
      'apps/door/src/artifacts/archive-pack.ts',
      'apps/door/src/artifacts/artifact-manifest.ts',
      'apps/door/src/artifacts/store-record.ts',
      'apps/door/src/artifacts/store-folder.ts',
    ],
  ],
  // Decodes every trace line of every door the suite stops with the records' own reader (docs/records.md, "The writer's
  // types are the contract, the tests check the doors"); no public surface decodes a whole trace line.
  ['apps/door/test/support/trace-schema-check.ts', ['apps/door/src/records/trace-lines.ts']],
]);

const files = SOURCE_ROOTS.map((r) => path.join(ROOT, r))
  .filter(existsSync)
  .flatMap(sourceFiles);
const graph = new Map(files.map((f) => [f, importsOf(f)]));
const problems = [];
const rel = (f) => path.relative(ROOT, f);

for (const [file, targets] of graph) {
  const from = doorLayer(file);
  if (from === null) continue;
  if (!RANK.has(from)) {
    problems.push(`${rel(file)}: ${from} is not a layer of apps/door/src; add it to DOOR_LAYERS (and docs/architecture.md)`);
    continue;
  }
  for (const target of targets) {
    const to = doorLayer(target);
    if (to === null || to === from) continue;
    if (!RANK.has(to)) continue; // reported as its own file
    if (RANK.get(to) >= RANK.get(from)) {
      const way = RANK.get(to) > RANK.get(from) ? 'up' : 'sideways';
      problems.push(`${rel(file)} imports ${rel(target)}: ${from} → ${to} points ${way}`);
    }
  }
}

// Cycles: an iterative depth-first search; each cycle is reported once, by its path.
const state = new Map();
const reported = new Set();
for (const start of graph.keys()) {
  if (state.has(start)) continue;
  const stack = [[start, 0]];
  const trail = [start];
  state.set(start, 'open');
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    const [node, index] = top;
    const targets = graph.get(node) ?? [];
    if (index >= targets.length) {
      state.set(node, 'done');
      stack.pop();
      trail.pop();
      continue;
    }
    top[1] += 1;
    const next = targets[index];
    if (state.get(next) === 'open') {
      const cycle = [...trail.slice(trail.indexOf(next)), next].map(rel);
      const key = [...cycle].slice(0, -1).sort().join('|');
      if (!reported.has(key)) {
        reported.add(key);
        problems.push(`import cycle: ${cycle.join(' → ')}`);
      }
    } else if (!state.has(next) && graph.has(next)) {
      state.set(next, 'open');
      stack.push([next, 0]);
      trail.push(next);
    }
  }
}

// Black-box tests: a file under apps/door/test (support/ and hostile/ included) imports nothing from apps/door/src.
const testFiles = existsSync(path.join(ROOT, DOOR_TESTS)) ? sourceFiles(path.join(ROOT, DOOR_TESTS)) : [];
const allowedSeen = new Set();
for (const file of testFiles) {
  const allowed = TEST_IMPORTS_NOT_YET_MOVED.get(rel(file)) ?? [];
  for (const target of importsOf(file)) {
    if (doorLayer(target) === null) continue;
    if (allowed.includes(rel(target))) {
      allowedSeen.add(`${rel(file)} → ${rel(target)}`);
      continue;
    }
    problems.push(
      `${rel(file)} imports ${rel(target)}: a black-box test uses the door's public surfaces (a real mur process, HTTP, @murmur/protocol, @murmur/client, files on disk), never apps/door/src; a unit's test lives beside its source as *.spec.ts (docs/architecture.md, "Tests")`,
    );
  }
}
for (const [file, targets] of TEST_IMPORTS_NOT_YET_MOVED) {
  for (const target of targets) {
    if (!allowedSeen.has(`${file} → ${target}`))
      problems.push(`${file} no longer imports ${target}: remove it from TEST_IMPORTS_NOT_YET_MOVED in scripts/check-imports.mjs`);
  }
}

if (problems.length > 0) {
  process.stderr.write(`check-imports: ${problems.length} problem(s)\n${problems.map((p) => `  ${p}`).join('\n')}\n`);
  process.exit(1);
}
const edges = [...graph.values()].reduce((n, t) => n + t.length, 0);
process.stdout.write(
  `check-imports: ${files.length} files, ${edges} imports; door layers point down, no cycles; ${testFiles.length} black-box test files import no door source (${allowedSeen.size} imports not yet moved)\n`,
);
