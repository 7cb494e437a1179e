/**
 * `npm run soak`: the long runs of issue 16, each printing its figures. Seeds and sizes come from the environment:
 * MURMUR_FUZZ_SEED / MURMUR_FUZZ_RUNS (the fuzz runs as its node:test file), MURMUR_FROZEN_REPS (formation-faults.test's
 * frozen calls, 100), MURMUR_PROVIDER_FAULT_SEED / _RUNS / _HUGE_MB (provider-faults.test's draws, 200 of them, 20 MB replies), MURMUR_STALL_SEED / MURMUR_STALL_TRIALS (stalled-reconnect.test's draws, 20), MURMUR_CRASH_SEED, MURMUR_SOAK_STREAMS, MURMUR_SOAK_SECONDS. Loopback only; every loop is bounded in count and time.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { runCrashTrials } from './crash.js';
import { HEAP_CAP_MIB, RSS_CEILING_MIB, runMemoryCeiling } from './memory-ceiling.js';
import { runSoak } from './soak.js';

const failures: string[] = [];
const check = (ok: boolean, what: string) => {
  if (!ok) failures.push(what);
};

const fuzzRuns = process.env.MURMUR_FUZZ_RUNS ?? '30000';
console.log(`== fuzz: ${fuzzRuns} generated requests`);
const fuzz = spawnSync(process.execPath, ['--test', fileURLToPath(new URL('../fuzz-generated.test.js', import.meta.url))], {
  env: { ...process.env, MURMUR_FUZZ_RUNS: fuzzRuns },
  encoding: 'utf8',
});
console.log(
  fuzz.stdout
    .split('\n')
    .filter((l) => l.includes('figures') || /^# (pass|fail)/.test(l))
    .join('\n'),
);
check(fuzz.status === 0, 'fuzz');

console.log(`== memory ceiling: heap capped at ${HEAP_CAP_MIB} MB, ceiling ${RSS_CEILING_MIB} MiB`);
const ceiling = await runMemoryCeiling({ messages: 40, parallel: 8, stalled: 8 });
console.log(JSON.stringify(ceiling));
check(ceiling.alive && ceiling.rssPeakMiB < RSS_CEILING_MIB, 'memory ceiling');

const crashSeed = Number(process.env.MURMUR_CRASH_SEED ?? 0xc4a5);
console.log(`== crash: 50 kill -9 trials, seed ${crashSeed}`);
const crash = await runCrashTrials(50, crashSeed);
console.log(JSON.stringify(crash));
check(crash.missing === 0 && crash.leftLive === 0 && crash.integrityFailures === 0 && crash.commandGroups > 0 && crash.survivors === 0, 'crash');

const frozenReps = process.env.MURMUR_FROZEN_REPS ?? '100';
console.log(`== frozen member: ${frozenReps} calls to a member stopped (SIGSTOP) while it holds them, collections forced`);
const frozen = spawnSync(process.execPath, ['--test', fileURLToPath(new URL('../formation-faults.test.js', import.meta.url))], {
  env: { ...process.env, MURMUR_FROZEN_REPS: frozenReps },
  encoding: 'utf8',
});
console.log(
  frozen.stdout
    .split('\n')
    .filter((l) => l.includes('figures') || /^# (pass|fail)/.test(l))
    .join('\n'),
);
check(frozen.status === 0, 'frozen member');

const providerRuns = process.env.MURMUR_PROVIDER_FAULT_RUNS ?? '200';
const hugeMb = process.env.MURMUR_PROVIDER_FAULT_HUGE_MB ?? '20';
console.log(`== provider faults: ${providerRuns} scenarios drawn from seed ${process.env.MURMUR_PROVIDER_FAULT_SEED ?? 29}, huge replies of ${hugeMb} MB`);
const providers = spawnSync(process.execPath, ['--test', fileURLToPath(new URL('../provider-faults.test.js', import.meta.url))], {
  env: { ...process.env, MURMUR_PROVIDER_FAULT_RUNS: providerRuns, MURMUR_PROVIDER_FAULT_HUGE_MB: hugeMb },
  encoding: 'utf8',
});
console.log(
  providers.stdout
    .split('\n')
    .filter((l) => l.includes('figures') || /^# (pass|fail)/.test(l))
    .join('\n'),
);
check(providers.status === 0, 'provider faults');

const stallTrials = process.env.MURMUR_STALL_TRIALS ?? '20';
console.log(`== stalled readers: ${stallTrials} stalls and reconnects drawn from seed ${process.env.MURMUR_STALL_SEED ?? 29}`);
const stalls = spawnSync(process.execPath, ['--test', fileURLToPath(new URL('../stalled-reconnect.test.js', import.meta.url))], {
  env: { ...process.env, MURMUR_STALL_TRIALS: stallTrials },
  encoding: 'utf8',
});
console.log(
  stalls.stdout
    .split('\n')
    .filter((l) => l.includes('figures') || /^# (pass|fail)/.test(l))
    .join('\n'),
);
check(stalls.status === 0, 'stalled readers');

const streams = Number(process.env.MURMUR_SOAK_STREAMS ?? 1000);
const seconds = Number(process.env.MURMUR_SOAK_SECONDS ?? 60);
console.log(`== soak: ${streams} WatchSession streams held ${seconds} s with tasks running (heartbeat 1 s)`);
const soak = await runSoak(streams, seconds * 1000);
console.log(JSON.stringify(soak));
check(soak.streamsEndedEarly === 0 && soak.heartbeatsMinPerStream >= Math.floor(seconds * 0.9) && soak.fdsAfter <= soak.fdsBefore + 2, 'soak');

console.log(failures.length === 0 ? '== soak: every run passed' : `== soak: FAILED ${failures.join(', ')}`);
process.exit(failures.length === 0 ? 0 : 1);
