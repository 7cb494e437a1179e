import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { collectUntilReleased, HEAP_GROWTH_BYTES, type HeapNow, MAX_COLLECTIONS, MIN_RELEASE_BYTES, QuietCollector } from './quiet-collector.js';

const MiB = 1024 * 1024;

const heap = (usedMiB: number, heldMiB: number): HeapNow => ({ usedBytes: usedMiB * MiB, heldBytes: heldMiB * MiB });

test('a quiet door collects once its used heap grew by the threshold, then measures growth from what the collection left', () => {
  const left = [heap(60, 70), heap(70, 80)];
  let collections = 0;
  const collector = new QuietCollector(heap(40, 50), () => left[collections++]!, 16 * MiB, 0.02);
  assert.equal(collector.check(0.5, heap(100, 120)), false, 'busy: no collection, however large the heap');
  assert.equal(collector.check(0.01, heap(55, 60)), false, 'quiet, grown less than the threshold');
  assert.equal(collector.check(0.01, heap(56, 60)), true, 'quiet and the used heap grown by the threshold');
  assert.equal(collections, 1);
  assert.equal(collector.check(0.01, heap(75, 80)), false, 'growth counts from the 60 MiB the collection left');
  assert.equal(collector.check(0.01, heap(76, 80)), true);
  assert.equal(collections, 2);
});

test('a quiet door collects when V8 holds 16 MiB more than the last collection left, however little of it is used', () => {
  let collections = 0;
  const collect = () => {
    collections++;
    return heap(26, 101);
  };
  const collector = new QuietCollector(heap(25, 30), collect, 16 * MiB, 0.02);
  assert.equal(collector.check(0.01, heap(27, 45)), false, 'held grew by 15 MiB');
  assert.equal(collector.check(0.5, heap(27, 101)), false, 'busy');
  assert.equal(collector.check(0.01, heap(27, 101)), true, 'quiet, held grew by 71 MiB, used by 2');
  assert.equal(collector.check(0.01, heap(27, 101)), false, 'V8 kept the pages: no collection again until the held heap grows from there');
  assert.equal(collector.check(0.01, heap(27, 117)), true);
  assert.equal(collections, 2);
});

test('collections go on while each gives back a MiB of the held heap, at least two and at most four', () => {
  const row = (helds: number[]) => {
    let i = 0;
    let collections = 0;
    const left = collectUntilReleased(
      () => {
        collections++;
        i++;
      },
      () => heap(20, helds[Math.min(i, helds.length - 1)]!),
    );
    return { collections, heldMiB: left.heldBytes / MiB };
  };
  assert.deepEqual(row([101, 54, 30, 24, 23.5]), { collections: 4, heldMiB: 23.5 }, 'each gave back a MiB or more: the fourth is the last');
  assert.deepEqual(row([101, 54, 53.5]), { collections: 2, heldMiB: 53.5 }, 'the second gave back half a MiB');
  assert.deepEqual(row([40, 40, 40]), { collections: 2, heldMiB: 40 }, 'the first gave nothing back: a second all the same');
  assert.equal(MAX_COLLECTIONS, 4);
  assert.equal(MIN_RELEASE_BYTES, MiB);
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
  const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })) as {
    grown: number;
    quiet: number;
    gcVisible: string;
  };
  assert.ok(
    out.grown - out.quiet >= HEAP_GROWTH_BYTES / 2,
    `heap ${(out.grown / MiB).toFixed(1)} MiB under work, ${(out.quiet / MiB).toFixed(1)} MiB once quiet`,
  );
  assert.equal(out.gcVisible, 'undefined');
});
