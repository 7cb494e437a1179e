/**
 * The memory ceiling (issue 16): with its heap capped, a door survives max-size messages answered in full, several at
 * once, while stalled watchers never read, and its RSS stays under the documented ceiling. The long run is in
 * `npm run soak`.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HEAP_CAP_MIB, RSS_CEILING_MIB, runMemoryCeiling } from './hostile/memory-ceiling.js';

test(`16 max-size messages, 4 at a time, 4 stalled watchers: the door stays up under ${RSS_CEILING_MIB} MiB (heap capped at ${HEAP_CAP_MIB} MB)`, {
  timeout: 120_000,
}, async () => {
  const figures = await runMemoryCeiling({ messages: 16, parallel: 4, stalled: 4 });
  console.log(`# memory-ceiling figures: ${JSON.stringify(figures)}`);
  assert.ok(figures.alive, 'the door is still running');
  assert.ok(figures.rssPeakMiB < RSS_CEILING_MIB, `peak RSS ${figures.rssPeakMiB.toFixed(0)} MiB`);
});
