import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { YOUNG_GENERATION_CAP_BYTES } from './young-generation.js';

const MODULE = fileURLToPath(new URL('./young-generation.js', import.meta.url));

/** The young generation's size, in a fresh process started small and then serving load that keeps objects alive across scavenges (requests in flight). */
function youngGenerationAfterLoad(cap: string): number {
  const script = `
    const v8 = (await import('node:v8')).default;
    const { keepYoungGenerationSmall, allowYoungGenerationGrowth } = await import(${JSON.stringify(MODULE)});
    keepYoungGenerationSmall();
    allowYoungGenerationGrowth(${cap});
    const live = new Array(40000);
    let n = 0;
    for (let turn = 0; turn < 3000; turn++) {
      for (let i = 0; i < 1000; i++) live[n++ % live.length] = { turn, i, text: 'x'.repeat(32) + i };
      await new Promise((resolve) => setImmediate(resolve));
    }
    process.stdout.write(String(v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size));
  `;
  return Number(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }));
}

test('once the door serves, the young generation grows under load up to its cap, not to V8’s 2 × 16 MiB', () => {
  const capped = youngGenerationAfterLoad('undefined');
  const uncapped = youngGenerationAfterLoad('Infinity');
  assert.ok(capped > 2 * 1024 * 1024, `it grows past the start's 2 MiB (${capped} bytes)`);
  assert.ok(capped <= 2 * YOUNG_GENERATION_CAP_BYTES, `capped: ${capped} bytes`);
  assert.ok(uncapped > 2 * YOUNG_GENERATION_CAP_BYTES, `the same load without the cap grows it further: ${uncapped} bytes`);
});
