#!/usr/bin/env node
// @murmur/protocol's public surface is what something outside it uses (docs/architecture.md, "The protocol's
// surface"): every name its entry points export must be imported by name somewhere outside packages/protocol —
// the door, the client (a re-export counts: the client's own surface), the console, e2e, tools — or be on the
// short allow-list below with its reason. Prints each unused export, and each allow-list entry that is stale (used
// after all, or no longer exported), and exits 1; exits 0 with one summary line otherwise.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PROTOCOL = 'packages/protocol';

/**
 * Exported on purpose though nothing outside the package imports them yet: the name, then why. Keep it short; an
 * export with no reason to be public is un-exported instead.
 */
const ALLOWED = new Map([
  // ['NAME', 'why it is public though nothing outside the package imports it'],
]);

/** The code an `exports` target names: a path, or the `import` (else `default`) branch of its conditions, at any depth. */
const codeOf = (target) => (typeof target === 'string' ? target : codeOf(target.import ?? target.default));

/** The package's entry points: its package.json `exports` subpaths other than ./package.json, as source files. */
function entryPoints() {
  const manifest = JSON.parse(readFileSync(path.join(ROOT, PROTOCOL, 'package.json'), 'utf8'));
  return Object.entries(manifest.exports)
    .filter(([subpath]) => subpath !== './package.json')
    .map(([subpath, target]) => {
      const built = codeOf(target);
      const source = built.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts');
      return { specifier: subpath === '.' ? '@murmur/protocol' : `@murmur/protocol/${subpath.slice(2)}`, file: path.join(ROOT, PROTOCOL, source) };
    });
}

const stripComments = (text) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/[^\n]*/g, '');

/** The names in `{ a, type B, c as d }`: what the importing side (or the re-exporting side) calls them, and their source names. */
function specifierNames(list) {
  return stripComments(list)
    .split(',')
    .map((s) => s.trim().replace(/^type\s+/, ''))
    .filter((s) => s !== '')
    .map((s) => s.split(/\s+as\s+/)[0].trim());
}

/** The names an entry point exports: only `export { … } from` and `export type { … } from` lists, as index.ts writes them. */
function exportsOf(file) {
  const text = stripComments(readFileSync(file, 'utf8'));
  if (/export\s+\*/.test(text)) throw new Error(`${path.relative(ROOT, file)}: export * hides what is exported; name each export`);
  const names = new Set();
  for (const match of text.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}\s*from\s*['"][^'"]+['"]/g)) {
    for (const name of stripComments(match[1])
      .split(',')
      .map((s) => s.trim().replace(/^type\s+/, ''))) {
      if (name !== '')
        names.add(
          name
            .split(/\s+as\s+/)
            .pop()
            .trim(),
        );
    }
  }
  const rest = text.replace(/export\s+(?:type\s+)?\{[^}]*\}\s*from\s*['"][^'"]+['"];?/g, '');
  if (/\bexport\b/.test(rest)) throw new Error(`${path.relative(ROOT, file)}: an entry point only re-exports, as \`export { … } from\``);
  return names;
}

const SKIP = new Set(['node_modules', 'dist', '.git', '.turbo', 'test-results', 'playwright-report', 'api']);
const CODE = /\.(?:[cm]?[jt]s|tsx|svelte)$/;

function codeFiles(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...codeFiles(full));
    else if (CODE.test(entry.name)) out.push(full);
  }
  return out;
}

const CONSUMERS = ['apps', 'packages', 'e2e', 'tools', 'scripts'].map((d) => path.join(ROOT, d)).filter(existsSync);

/** Every name imported or re-exported from `specifier` by a file outside packages/protocol. */
function usedNames(specifier) {
  const used = new Set();
  const escaped = specifier.replace(/[/.@-]/g, '\\$&');
  const named = new RegExp(`(?:import|export)\\s+(?:type\\s+)?\\{([^}]*)\\}\\s*from\\s*['"]${escaped}['"]`, 'g');
  const whole = new RegExp(`(?:import\\s+\\*\\s+as|export\\s+\\*)[^'"]*from\\s*['"]${escaped}['"]|import\\(\\s*['"]${escaped}['"]`);
  for (const file of CONSUMERS.flatMap(codeFiles)) {
    if (file.startsWith(path.join(ROOT, PROTOCOL) + path.sep)) continue;
    const text = readFileSync(file, 'utf8');
    if (!text.includes(specifier)) continue;
    if (whole.test(text)) throw new Error(`${path.relative(ROOT, file)} imports ${specifier} whole; import each name, so that what is used can be read`);
    for (const match of text.matchAll(named)) for (const name of specifierNames(match[1])) used.add(name);
  }
  return used;
}

const problems = [];
let exported = 0;
const everyExport = new Set();
for (const { specifier, file } of entryPoints()) {
  const names = exportsOf(file);
  const used = usedNames(specifier);
  exported += names.size;
  for (const name of [...names].sort()) {
    everyExport.add(name);
    if (used.has(name)) {
      if (ALLOWED.has(name)) problems.push(`${specifier}: ${name} is on the allow-list but used outside ${PROTOCOL}; take it off`);
    } else if (!ALLOWED.has(name)) {
      problems.push(
        `${specifier}: ${name} is exported but used nowhere outside ${PROTOCOL}; un-export it, or allow it in scripts/check-unused-exports.mjs with a reason`,
      );
    }
  }
}
for (const name of ALLOWED.keys()) if (!everyExport.has(name)) problems.push(`${name} is on the allow-list but no longer exported; take it off`);

// docs/architecture.md quotes the surface's size: it must be the entry's own count.
const quoted = /\((\d+) names;/.exec(readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8'));
if (quoted === null) problems.push("docs/architecture.md no longer quotes the protocol's surface as '(<n> names; …'");
else if (Number(quoted[1]) !== exported)
  problems.push(`docs/architecture.md says the protocol's surface is ${quoted[1]} names; the entry exports ${exported}: change the count there`);

if (problems.length > 0) {
  for (const problem of problems) console.error(problem);
  console.error(`check-unused-exports: ${problems.length} problem(s)`);
  process.exit(1);
}
console.log(`check-unused-exports: ${exported} exports of @murmur/protocol, each used outside it or allowed (${ALLOWED.size})`);
