/**
 * Shells never outlive their session (docs/agent-loop.md, "Processes"), measured on real doors: over N kill -9
 * trials, how many of the session's process groups survive the door (target 0) and how long the reaper takes to
 * kill them; and how soon a foreground call returns after its shell exits while a child holds its output (target
 * under 200 ms, read from the tool_call records' duration).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { METHOD } from '@murmur/protocol';
import { groupAlive } from '../src/tools/process-group.js';
import { startDoor } from './door-process.js';
import { rpc, sendParams } from './rpc-client.js';
import { median, quantile, sortedCopy } from './stats.js';

export const PROCESS_TARGETS = { survivors: 0, holderReturnMs: 200 } as const;

export interface ProcessLifetime {
  killTrials: number;
  survivors: number;
  killMs: { p50: number; max: number };
  holderCalls: number;
  holderReturnMs: { p50: number; p99: number };
  pass: boolean;
}

/**
 * The trials' capsule. Its commands run outside the sandbox: a sandboxed command has a private /tmp (where the bench
 * reads the pid file) and a pid namespace (where `$$` is not the host's pid), and the trials count host process groups.
 */
function writeCapsule(dir: string, pidDir: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'murmur.yaml'),
    'name: bench-processes\nversion: 0.1.0\nlifecycle:\n  task_acceptance: queue\ninference:\n  driver: script\n  script: script.yaml\n  max_turns: 3\ncapabilities:\n  shell:\n    allow: [bash]\n    sandbox: off\n',
  );
  writeFileSync(
    path.join(dir, 'script.yaml'),
    `rules:
  - match: '^hold (.*)$'
    turns:
      - tools:
          - tool: bash
            input: { command: "echo $$ > ${pidDir}/{{match.1}}; sleep 60 & sleep 60" }
        answer: held
  - match: '^holder$'
    turns:
      - tools:
          - tool: bash
            input: { command: "sleep 30 & echo hi" }
        answer: back
default:
  turns:
    - answer: none
`,
  );
  return dir;
}

async function until<T>(probe: () => T | undefined, ms: number, step = 5): Promise<T | undefined> {
  const deadline = performance.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined || performance.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, step));
  }
}

export async function measureProcessLifetime(root: string, trials: number, holderCalls: number, log: (line: string) => void): Promise<ProcessLifetime> {
  const pidDir = path.join(root, 'pids');
  mkdirSync(pidDir, { recursive: true });
  const capsuleDir = writeCapsule(path.join(root, 'process-capsule'), pidDir);
  const killMs: number[] = [];
  let survivors = 0;
  log(`processes: ${trials} kill -9 trials`);
  for (let trial = 0; trial < trials; trial++) {
    const door = await startDoor({ home: path.join(root, `home-kill-${trial}`), capsuleDir });
    void rpc(door.url, METHOD.SendMessage, { ...sendParams(`hold ${trial}`, `msg-hold-${trial}`), configuration: { returnImmediately: true } });
    const file = path.join(pidDir, String(trial));
    const pgid = await until(() => {
      try {
        const text = readFileSync(file, 'utf8').trim();
        return /^\d+$/.test(text) ? Number(text) : undefined;
      } catch {
        return undefined;
      }
    }, 10_000);
    if (pgid === undefined) throw new Error(`trial ${trial}: the command never started`);
    process.kill(door.pid, 'SIGKILL');
    const killed = performance.now();
    await door.stop();
    const gone = await until(() => (groupAlive(pgid) ? undefined : true), 5_000);
    if (gone) killMs.push(performance.now() - killed);
    else {
      survivors += 1;
      try {
        process.kill(-pgid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
  }
  log(`processes: ${holderCalls} foreground calls whose child holds the output`);
  const door = await startDoor({ home: path.join(root, 'home-holder'), capsuleDir });
  try {
    for (let i = 0; i < holderCalls; i++) await rpc(door.url, METHOD.SendMessage, sendParams('holder', `msg-holder-${i}`));
  } finally {
    await door.stop();
  }
  const durations = readFileSync(path.join(door.recordsDir, 'trace.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.includes('"type":"tool_call"'))
    .map((line) => (JSON.parse(line) as { duration_ms: number }).duration_ms);
  const sorted = sortedCopy(durations);
  const kills = sortedCopy(killMs);
  const result = {
    killTrials: trials,
    survivors,
    killMs: { p50: kills.length > 0 ? median(kills) : Number.NaN, max: kills.length > 0 ? kills[kills.length - 1] : Number.NaN },
    holderCalls: durations.length,
    holderReturnMs: { p50: median(sorted), p99: quantile(sorted, 0.99) },
  };
  return { ...result, pass: result.survivors === PROCESS_TARGETS.survivors && result.holderReturnMs.p99 < PROCESS_TARGETS.holderReturnMs };
}
