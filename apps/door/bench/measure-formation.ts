/**
 * Formations (docs/formations.md, docs/benchmarks.md "Formations"): a three-member formation under `mur run --roster`
 * started and stopped whole, and call-member's round trip between two of its members on loopback — the calling
 * task's call, the member's task, the 500 ms poll that reads its answer, and the continuation. Reported, not asserted.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { METHOD } from '@murmur/protocol';
import { track } from './children.js';
import { MUR_CLI } from './door-process.js';
import { cpuSecondsOf } from './proc-cpu.js';
import { rpc, sendParams } from './rpc-client.js';
import { quantile, round, sortedCopy } from './stats.js';

const manifest = (name: string, callee: boolean) =>
  [
    `name: ${name}`,
    'version: 0.1.0',
    'lifecycle:',
    '  task_acceptance: queue',
    'inference:',
    '  driver: script',
    '  script: script.yaml',
    '  max_turns: 4',
    'capabilities:',
    '  network:',
    '    allow: [localhost]',
    ...(callee ? ['exports:', '  peer_tasks:', '    accept: true'] : []),
    '',
  ].join('\n');
/** The planner's task: one call to worker, end the turn, answer with the continuation. */
const PLANNER_SCRIPT = JSON.stringify({
  rules: [],
  default: {
    turns: [{ tools: [{ tool: 'call-member', input: { member: 'worker', task: '{{task.text}}' } }], answer: 'waiting' }, { answer: '{{continuation}}' }],
  },
});
const CALLEE_SCRIPT = JSON.stringify({ rules: [], default: { turns: [{ answer: 'worker: {{task.text}}' }] } });
const ROSTER =
  'name: bench-trio\nentry: planner\nmembers:\n  planner: { capsule: ./planner }\n  worker: { capsule: ./worker }\n  critic: { capsule: ./critic }\nrules:\n  - from: planner\n    to: [worker, critic]\n';

interface Member {
  member: string;
  url: string;
  pid: number;
  recordsDir: string;
}

export interface FormationMeasurement {
  members: number;
  /** `mur run --roster` spawned → its announcement (every member serving and seated), per trial. */
  startMs: number[];
  /** CPU time (user + system, /proc) the supervisor and the members had used at the announcement, per trial: steadier than wall time on a busy machine. */
  startCpuMs: number[];
  /** SIGTERM to the supervisor → the supervisor and every member process gone, per trial. */
  stopMs: number[];
  roundTrip: {
    samples: number;
    /** The planner's member_call_start → its task_continued (trace timestamps, whole ms): call → continuation. */
    callToContinuationMs: { p50: number; p99: number };
    /** A blocking SendMessage to the planner whose task makes the one call, end to end. */
    taskMs: { p50: number; p99: number };
    /** CPU time (user + system, /proc) of the planner and the worker per round trip. */
    cpuMsPerRoundTrip: { planner: number; worker: number };
  };
}

const p = (values: number[]) => {
  const sorted = sortedCopy(values);
  return { p50: round(quantile(sorted, 0.5)), p99: round(quantile(sorted, 0.99)) };
};

function writeFormation(dir: string): string {
  for (const [name, callee, script] of [
    ['planner', false, PLANNER_SCRIPT],
    ['worker', true, CALLEE_SCRIPT],
    ['critic', true, CALLEE_SCRIPT],
  ] as const) {
    mkdirSync(path.join(dir, name), { recursive: true });
    writeFileSync(path.join(dir, name, 'murmur.yaml'), manifest(name, callee));
    writeFileSync(path.join(dir, name, 'script.yaml'), script);
  }
  writeFileSync(path.join(dir, 'roster.yaml'), ROSTER);
  return path.join(dir, 'roster.yaml');
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function start(rosterFile: string, home: string): Promise<{ child: ChildProcess; members: Member[]; ms: number; cpuMs: number }> {
  const started = performance.now();
  const child = track(
    spawn(process.execPath, [MUR_CLI, 'run', '--roster', rosterFile, '--json'], {
      env: { ...process.env, MURMUR_HOME: home },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const members = await new Promise<Member[]>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`mur run --roster exited ${code} before announcing: ${stderr.trim()}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.startsWith('{')) resolve((JSON.parse(line) as { members: Member[] }).members);
    });
  });
  const ms = performance.now() - started;
  const cpuMs = [child.pid!, ...members.map((m) => m.pid)].reduce((sum, pid) => sum + (cpuSecondsOf(pid) ?? 0) * 1000, 0);
  return { child, members, ms, cpuMs };
}

/** SIGTERM, then waits until the supervisor and every member have exited (SIGKILL after 15 s). */
async function stop(child: ChildProcess, members: Member[]): Promise<number> {
  const started = performance.now();
  const exited = child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const killer = setTimeout(() => {
    child.kill('SIGKILL');
    for (const m of members) if (alive(m.pid)) process.kill(m.pid, 'SIGKILL');
  }, 15_000);
  await exited;
  while (members.some((m) => alive(m.pid))) await new Promise((resolve) => setTimeout(resolve, 5));
  clearTimeout(killer);
  return performance.now() - started;
}

type TraceRecord = { type: string; ts: string; task_id?: string };

async function roundTrips(planner: Member, worker: Member, samples: number): Promise<FormationMeasurement['roundTrip']> {
  const send = async (i: number) => {
    const sent = await rpc(planner.url, METHOD.SendMessage, sendParams(`rt ${i}`, `msg-formation-${i}`));
    const task = sent.result.task as { id: string; status: { state: string }; artifacts?: { parts: { text?: string }[] }[] };
    const text = task.artifacts?.map((a) => a.parts.map((part) => part.text ?? '').join('')).join('') ?? '';
    if (task.status.state !== 'TASK_STATE_COMPLETED' || !text.includes(`worker: rt ${i}`))
      throw new Error(`round trip ${i} did not come back: ${JSON.stringify(task).slice(0, 300)}`);
    return { id: task.id, ms: sent.elapsedMs };
  };
  await send(-1); // warm: the first call opens the connection and compiles the paths
  const cpuBefore = { planner: cpuSecondsOf(planner.pid) ?? 0, worker: cpuSecondsOf(worker.pid) ?? 0 };
  const tasks: { id: string; ms: number }[] = [];
  for (let i = 0; i < samples; i++) tasks.push(await send(i));
  const cpuAfter = { planner: cpuSecondsOf(planner.pid) ?? 0, worker: cpuSecondsOf(worker.pid) ?? 0 };
  const records = readFileSync(path.join(planner.recordsDir, 'trace.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as TraceRecord);
  const at = (taskId: string, type: string) => {
    const record = records.find((r) => r.task_id === taskId && r.type === type);
    if (!record) throw new Error(`task ${taskId} has no ${type} record`);
    return Date.parse(record.ts);
  };
  return {
    samples,
    callToContinuationMs: p(tasks.map((t) => at(t.id, 'task_continued') - at(t.id, 'member_call_start'))),
    taskMs: p(tasks.map((t) => t.ms)),
    cpuMsPerRoundTrip: {
      planner: round(((cpuAfter.planner - cpuBefore.planner) * 1000) / samples),
      worker: round(((cpuAfter.worker - cpuBefore.worker) * 1000) / samples),
    },
  };
}

/** `trials` starts and stops of the formation; the round trips on the first one. */
export async function measureFormation(root: string, options: { trials: number; samples: number }, log: (line: string) => void): Promise<FormationMeasurement> {
  const rosterFile = writeFormation(path.join(root, 'formation'));
  const startMs: number[] = [];
  const startCpuMs: number[] = [];
  const stopMs: number[] = [];
  let roundTrip: FormationMeasurement['roundTrip'] | null = null;
  for (let trial = 0; trial < options.trials; trial++) {
    log(`formation: start ${trial + 1} of ${options.trials}${trial === 0 ? `, then ${options.samples} call → continuation round trips` : ''}`);
    const { child, members, ms, cpuMs } = await start(rosterFile, path.join(root, `formation-home-${trial}`));
    startMs.push(round(ms));
    startCpuMs.push(round(cpuMs));
    try {
      if (trial === 0) {
        const member = (name: string) => members.find((m) => m.member === name)!;
        roundTrip = await roundTrips(member('planner'), member('worker'), options.samples);
      }
    } finally {
      stopMs.push(round(await stop(child, members)));
    }
  }
  return { members: 3, startMs, startCpuMs, stopMs, roundTrip: roundTrip! };
}

export function renderFormation(m: FormationMeasurement): string {
  const r = m.roundTrip;
  const med = (values: number[]) => round(quantile(sortedCopy(values), 0.5));
  return [
    '',
    'Formations (reported, not asserted)',
    `start, ${m.members} members           median ${med(m.startMs)} ms  (mur run --roster → announced, every member serving; ${m.startMs.join(', ')} ms)`,
    `start CPU, ${m.members} members       median ${med(m.startCpuMs)} ms  (supervisor + members, /proc user + system at the announcement; ${m.startCpuMs.join(', ')} ms)`,
    `stop, ${m.members} members            median ${med(m.stopMs)} ms  (SIGTERM → supervisor and members exited; ${m.stopMs.join(', ')} ms)`,
    `call → continuation p50/p99  ${r.callToContinuationMs.p50} / ${r.callToContinuationMs.p99} ms  (member_call_start → task_continued, loopback; ${r.samples} samples; the member's task is read every 500 ms)`,
    `task with one call p50/p99   ${r.taskMs.p50} / ${r.taskMs.p99} ms  (blocking SendMessage to the caller, end to end)`,
    `CPU per round trip           planner ${r.cpuMsPerRoundTrip.planner} ms, worker ${r.cpuMsPerRoundTrip.worker} ms  (/proc user + system)`,
    '',
  ].join('\n');
}
