/**
 * Crash trials (issue 16): kill -9 at seeded random moments with SendMessage requests in flight; after --resume every
 * acknowledged task is there, none is left live (a crash's live tasks are settled FAILED), and PRAGMA integrity_check
 * answers ok, and no process the killed session started is still alive. The 50-trial run is in `npm run soak`; MURMUR_CRASH_SEED replays one.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCrashTrials } from './hostile/crash.js';

const SEED = Number(process.env.MURMUR_CRASH_SEED ?? 0xc4a5);

test(`5 kill -9 trials (seed ${SEED}): nothing acknowledged is lost, nothing left live, the store intact`, { timeout: 120_000 }, async () => {
  const figures = await runCrashTrials(5, SEED);
  console.log(`# crash figures: seed=${SEED} ${JSON.stringify(figures)}`);
  assert.ok(figures.acknowledged > 0);
  assert.equal(figures.missing, 0);
  assert.equal(figures.leftLive, 0);
  assert.equal(figures.integrityFailures, 0);
  assert.ok(figures.commandGroups > 0, 'the trials had commands running when the door was killed');
  assert.equal(figures.survivors, 0, 'no process of a killed session is alive after its resume');
});
