import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { fileURLToPath } from 'node:url';
import { excludedVersion, parseRange } from './support/node-range.js';

// An integrator installing @murmur/client or @murmur/protocol on a Node the package promises must get no
// EBADENGINE warning: every runtime dependency, transitively, admits every Node the package's own engines.node
// admits. Read from the installed packages' package.json, found as Node resolves them.
const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../../..');

interface Manifest {
  name: string;
  version: string;
  engines?: { node?: string };
  dependencies?: Record<string, string>;
}

const readManifest = (file: string): Manifest => JSON.parse(readFileSync(file, 'utf8')) as Manifest;

/** The package.json Node would load for `name` required from `fromDir`. */
function installed(name: string, fromDir: string): { dir: string; manifest: Manifest } {
  for (let dir = fromDir; ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'node_modules', name, 'package.json');
    if (existsSync(file)) return { dir: path.dirname(file), manifest: readManifest(file) };
    if (path.dirname(dir) === dir) throw new Error(`${name} is not installed where ${fromDir} would find it`);
  }
}

/** Every runtime dependency of the package at `dir`, transitively, once each (by name@version). */
function runtimeDependencies(dir: string): { dir: string; manifest: Manifest }[] {
  const seen = new Map<string, { dir: string; manifest: Manifest }>();
  const visit = (from: string) => {
    for (const name of Object.keys(readManifest(path.join(from, 'package.json')).dependencies ?? {})) {
      const found = installed(name, from);
      const key = `${found.manifest.name}@${found.manifest.version}`;
      if (seen.has(key)) continue;
      seen.set(key, found);
      visit(found.dir);
    }
  };
  visit(dir);
  return [...seen.values()];
}

for (const pkg of ['client', 'protocol']) {
  test(`every runtime dependency of @murmur/${pkg} admits the Node versions its engines.node promises`, () => {
    const dir = path.join(repo, 'packages', pkg);
    const own = readManifest(path.join(dir, 'package.json')).engines?.node;
    assert.ok(own, `@murmur/${pkg} declares engines.node`);
    const conflicts = runtimeDependencies(dir).flatMap(({ manifest }) => {
      const theirs = manifest.engines?.node;
      const excluded = theirs === undefined ? null : excludedVersion(own, theirs);
      return excluded === null ? [] : [`${manifest.name}@${manifest.version} wants node ${theirs}, which excludes ${excluded} (promised: ${own})`];
    });
    assert.deepEqual(conflicts, []);
  });
}

test('the engines comparison finds what an install would warn about', () => {
  // eventsource-parser 4.x against the client's promise: the warning this test exists for.
  assert.equal(excludedVersion('>=20.19', '>=22.12'), '20.19.0');
  assert.equal(excludedVersion('>=20.19', '>=18.0.0'), null);
  assert.equal(excludedVersion('>=20.19', '>=20.19.0'), null);
  assert.equal(excludedVersion('>=20.19', '>=20.19.1'), '20.19.0');
  assert.equal(excludedVersion('>=20.19', '^20.19.0 || >=22.12.0'), '21.0.0');
  assert.equal(excludedVersion('>=20.19', '^20.19.0 || ^22.12.0 || >=23'), '21.0.0');
  assert.equal(excludedVersion('^20.19.0 || >=22.12.0', '^20.19.0 || >=22.12.0'), null);
  assert.equal(excludedVersion('^20.19.0 || >=22.12.0', '^20.19.0 || ^22.12.0 || >=23'), null);
  assert.equal(excludedVersion('^20.19.0 || >=22.12.0', '^20.19.0 || ^22.13.0 || >=23'), '22.12.0');
  assert.equal(excludedVersion('>=20.19', '<24'), '24.0.0');
  assert.equal(excludedVersion('>=20.19', '>= 14'), null);
  assert.equal(excludedVersion('>=20.19', '*'), null);
  assert.equal(excludedVersion('>=20.19', '20.x || 22.x'), '21.0.0');
  assert.throws(() => parseRange('18 - 22'), /cannot read the range '18 - 22'/);
  assert.throws(() => parseRange('>=node20'), /cannot read the range/);
});
