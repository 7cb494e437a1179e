import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import test from 'node:test';
import { fileURLToPath } from 'node:url';

// The browser path: nothing under src/ may import a node: module, and fetch-event-source (which crashes Node) is
// loaded only by a dynamic import inside the browser transport.

const srcDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'src');

async function sources(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const files = await Promise.all(entries.map((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.js') ? [join(dir, e.name)] : [])));
  return files.flat();
}

test('no compiled source file imports a node: module, or anything Node-only', async () => {
  const files = await sources(srcDir);
  assert.ok(files.length >= 10);
  for (const file of files) {
    const text = await readFile(file, 'utf8');
    assert.doesNotMatch(text, /from\s+['"]node:|import\(['"]node:|require\(/, file);
    assert.doesNotMatch(text, /\bprocess\.|\bBuffer\b/, file);
  }
});

test('fetch-event-source is imported dynamically, by its transport only', async () => {
  for (const file of await sources(srcDir)) {
    const text = await readFile(file, 'utf8');
    assert.doesNotMatch(text, /from\s+['"]@microsoft\/fetch-event-source['"]/, file);
    if (text.includes("import('@microsoft/fetch-event-source')")) assert.match(file, /sse-fetch-event-source\.js$/);
  }
});
