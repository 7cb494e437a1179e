import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { fileURLToPath } from 'node:url';

// No module of the client or the protocol package imports itself back through a chain of relative imports
// (type-only imports count too: they are how cycles start). The check reads the sources, not dist.
const here = path.dirname(fileURLToPath(import.meta.url));
const packagesDir = path.resolve(here, '../../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

export function importGraph(files: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const specifier = /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s+['"](\.{1,2}\/[^'"]+)['"]/g;
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(specifier)].map((m) => path.resolve(path.dirname(file), m[1]!.replace(/\.js$/, '.ts')));
    graph.set(file, targets);
  }
  return graph;
}

export function findCycle(graph: Map<string, string[]>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): string[] | null => {
    if (state.get(node) === 'done') return null;
    if (state.get(node) === 'open') return [...stack.slice(stack.indexOf(node)), node];
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    stack.pop();
    state.set(node, 'done');
    return null;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return null;
}

test('the checker finds a cycle when there is one', () => {
  const graph = new Map([
    ['a', ['b']],
    ['b', ['c']],
    ['c', ['a']],
  ]);
  assert.deepEqual(findCycle(graph), ['a', 'b', 'c', 'a']);
  assert.equal(
    findCycle(
      new Map([
        ['a', ['b']],
        ['b', []],
      ]),
    ),
    null,
  );
});

for (const pkg of ['client', 'protocol']) {
  test(`no import cycle in packages/${pkg}/src`, () => {
    const files = sourceFiles(path.join(packagesDir, pkg, 'src'));
    assert.ok(files.length > 5, `found the sources of ${pkg}`);
    const cycle = findCycle(importGraph(files));
    assert.equal(cycle, null, `cycle: ${cycle?.map((f) => path.relative(packagesDir, f)).join(' → ')}`);
  });
}
