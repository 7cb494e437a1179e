#!/usr/bin/env node
// CommonJS types for an ES module package (issue 38): run in a package's folder after tsc, it copies each declaration
// file of dist/src to dist/cjs as .d.cts, its relative imports pointed at the .d.cts beside it. The package's exports
// map gives them under the `require` condition, with the same ES module as the code: Node 20.19 and 22.12 load an ES
// module with require() (no top-level await in it), so a CommonJS integrator — a .cts file under moduleResolution
// node16, say — gets types TypeScript reads as CommonJS and one copy of the code (no dual-package hazard: one class
// for each error, whoever imports it). Without them TypeScript refuses the import (TS1471, TS1541).
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const from = path.resolve('dist/src');
const to = path.resolve('dist/cjs');

/** Every .d.ts under `dir`, relative to it. */
function declarations(dir, rel = '') {
  return readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((entry) => {
    const name = path.join(rel, entry.name);
    if (entry.isDirectory()) return declarations(dir, name);
    return entry.name.endsWith('.d.ts') ? [name] : [];
  });
}

// `from './x.js'`, `import('./x.js')` and `export … from '../y/index.js'`: relative specifiers only.
const RELATIVE = /(\bfrom\s+|\bimport\s*\(\s*)(['"])(\.{1,2}\/[^'"]+)\.js\2/g;

rmSync(to, { recursive: true, force: true });
for (const file of declarations(from)) {
  const text = readFileSync(path.join(from, file), 'utf8').replace(RELATIVE, (_, lead, quote, specifier) => `${lead}${quote}${specifier}.cjs${quote}`);
  const target = path.join(to, file.replace(/\.d\.ts$/, '.d.cts'));
  mkdirSync(path.dirname(target), { recursive: true });
  writeFileSync(target, text.replace(/\n\/\/# sourceMappingURL=.*\n?$/, '\n'));
}
