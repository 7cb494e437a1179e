import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { HEAP_GROWTH_BYTES, QuietCollector } from './quiet-collector.js';

const MiB = 1024 * 1024;

test('a quiet door collects once its heap grew by the threshold, then measures growth from what the collection left', () => {
  const sizes = [60 * MiB, 70 * MiB];
  let collections = 0;
  const collector = new QuietCollector(40 * MiB, () => sizes[collections++]!, 16 * MiB, 0.02);
  assert.equal(collector.check(0.5, 100 * MiB), false, 'busy: no collection, however large the heap');
  assert.equal(collector.check(0.01, 55 * MiB), false, 'quiet, grown less than the threshold');
  assert.equal(collector.check(0.01, 56 * MiB), true, 'quiet and grown by the threshold');
  assert.equal(collections, 1);
  assert.equal(collector.check(0.01, 75 * MiB), false, 'growth counts from the 60 MiB the collection left');
  assert.equal(collector.check(0.01, 76 * MiB), true);
  assert.equal(collections, 2);
});

test('in a real process, going quiet after the heap grew gives the memory back, and `gc` stays hidden', () => {
  const module = fileURLToPath(new URL('./quiet-collector.js', import.meta.url));
  const script = `
    const v8 = await import('node:v8');
    const { collectWhenQuiet } = await import(${JSON.stringify(module)});
    collectWhenQuiet();
    const heap = () => v8.getHeapStatistics().used_heap_size;
    // Work that grows the heap: short-lived and middle-aged objects, as requests in flight are.
    let keep = [];
    for (let i = 0; i < 400000; i++) { keep.push({ i, text: 'x'.repeat(64) + i }); if (keep.length > 100000) keep = []; }
    keep = null;
    const grown = heap();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    process.stdout.write(JSON.stringify({ grown, quiet: heap(), gcVisible: typeof globalThis.gc }));
  `;
  const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })) as { grown: number; quiet: number; gcVisible: string };
  assert.ok(out.grown - out.quiet >= HEAP_GROWTH_BYTES / 2, `heap ${(out.grown / MiB).toFixed(1)} MiB under work, ${(out.quiet / MiB).toFixed(1)} MiB once quiet`);
  assert.equal(out.gcVisible, 'undefined');
});
