/**
 * The command sandbox's cost (docs/sandbox.md, docs/benchmarks.md "The command sandbox's cost"), on two real doors of
 * the same capsule, one of them with `capabilities.shell.sandbox: off`:
 * - a foreground shell call: blocking SendMessage tasks whose one turn runs one bash call (`true`) and answers, one at
 *   a time, alternating between the doors (the order swapped every pair); per task the wall time at the client, and
 *   the tool_call's own duration_ms from trace.jsonl; p50/p99 for each door and the difference, against a target of
 *   at most 15 ms added at p50;
 * - the same foreground call on a third door whose capsule lists a network destination (capabilities.network.allow
 *   "127.0.0.1:<port>"): the init's relay listens in every command's sandbox; against a target of at most 30 ms added;
 * - a background command's start: a task whose one bash call (`date +%s%N > bg-<n>; sleep 120`) moves to the
 *   background after lifecycle.shell_grace_secs; "started" = the request sent → the command's first instruction ran
 *   (the nanosecond clock it wrote into the workdir), "answered" = the task's wall time less the grace (the tool result
 *   naming the work id, then the answer).
 * Without bubblewrap (or where it cannot run a command) the measurement is skipped with the reason, not failed.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { METHOD } from '@murmur/protocol';
import { resolveOnPath } from '../src/tools/sandbox/binary-path.js';
import { TARGETS } from './config.js';
import { type DoorProcess, startDoor } from './door-process.js';
import { rpc, sendParams } from './rpc-client.js';
import { quantile, round, sortedCopy } from './stats.js';

/** lifecycle.shell_grace_secs of the capsule: a foreground `true` ends well inside it, the background `sleep` does not. */
const GRACE_SECS = 0.25;
/** The background commands sleep past the measurement, so no command result task queues behind the measured ones. */
const BACKGROUND_SLEEP_SECS = 120;
const FOREGROUND_COMMAND = 'true';

interface Quantiles {
  p50: number;
  p99: number;
  samples: number;
}

interface ShellSandboxSide {
  /** Blocking SendMessage of a task running one foreground `true`, wall time at the client. */
  taskMs: Quantiles;
  /** The same calls' tool_call duration_ms (trace.jsonl, whole ms): dispatch → tool result, inside the door. */
  commandMs: Quantiles;
  /** Request sent → the background command's first instruction ran (its own clock, written into the workdir). */
  backgroundStartedMs: Quantiles;
  /** The background task's wall time less the grace: the tool result naming the work id, then the answer. */
  backgroundAnsweredMs: Quantiles;
  /** Foreground calls that ran past the grace and moved to the background (0 expected; their times are still counted). */
  movedToBackground: number;
}

export type ShellSandboxMeasurement =
  | { skipped: string; pass: null }
  | {
      skipped: null;
      calls: number;
      warmup: number;
      backgroundCalls: number;
      command: string;
      graceSecs: number;
      sandboxed: ShellSandboxSide;
      unsandboxed: ShellSandboxSide;
      /** The sandboxed door of a capsule that lists a network destination: foreground calls only. */
      withDestination: Pick<ShellSandboxSide, 'taskMs' | 'commandMs'>;
      /** Sandboxed minus unsandboxed, per quantile. */
      addedTaskMs: { p50: number; p99: number };
      addedCommandMs: { p50: number; p99: number };
      addedBackgroundStartedMs: { p50: number; p99: number };
      addedBackgroundAnsweredMs: { p50: number; p99: number };
      addedWithDestinationTaskMs: { p50: number; p99: number };
      target: number;
      targetWithDestination: number;
      pass: boolean;
    };

export interface ShellSandboxOptions {
  calls: number;
  warmup: number;
  backgroundCalls: number;
}

/** A destination the third capsule lists; nothing listens there, and no command connects: only the relay's cost is measured. */
const LISTED_DESTINATION = '127.0.0.1:9';

function writeCapsule(dir: string, sandbox: 'on' | 'off' | 'with-destination'): string {
  mkdirSync(dir, { recursive: true });
  const network = sandbox === 'with-destination' ? `  network:\n    allow: ["${LISTED_DESTINATION}"]\n` : '';
  writeFileSync(
    path.join(dir, 'murmur.yaml'),
    `name: bench-shell-sandbox\nversion: 0.1.0\nlifecycle:\n  task_acceptance: queue\n  shell_grace_secs: ${GRACE_SECS}\ninference:\n  driver: script\n  script: script.yaml\n  max_turns: 3\ncapabilities:\n  shell:\n    allow: [bash]\n${sandbox === 'off' ? '    sandbox: off\n' : ''}${network}`,
  );
  writeFileSync(
    path.join(dir, 'script.yaml'),
    `rules:
  - match: '^shell fg$'
    turns:
      - tools:
          - tool: bash
            input: { command: "${FOREGROUND_COMMAND}" }
        answer: ran
  - match: '^shell bg (\\d+)$'
    turns:
      - tools:
          - tool: bash
            input: { command: "date +%s%N > bg-{{match.1}}; sleep ${BACKGROUND_SLEEP_SECS}" }
        answer: started
default:
  turns:
    - answer: none
`,
  );
  return dir;
}

function quantiles(values: number[]): Quantiles {
  const sorted = sortedCopy(values);
  return { p50: round(quantile(sorted, 0.5), 2), p99: round(quantile(sorted, 0.99), 2), samples: values.length };
}

const added = (on: Quantiles, off: Quantiles) => ({ p50: round(on.p50 - off.p50, 2), p99: round(on.p99 - off.p99, 2) });

/** Wall-clock milliseconds with sub-millisecond precision, comparable to `date +%s%N` in a command (no time namespace). */
const wallNowMs = () => performance.timeOrigin + performance.now();

let messages = 0;

async function task(door: DoorProcess, text: string): Promise<{ id: string; elapsedMs: number }> {
  const sent = await rpc(door.url, METHOD.SendMessage, sendParams(text, `msg-shell-sandbox-${++messages}`));
  const t = sent.result.task as { id?: unknown; status?: { state?: unknown } } | undefined;
  if (typeof t?.id !== 'string' || t.status?.state !== 'TASK_STATE_COMPLETED')
    throw new Error(`'${text}' did not complete: ${JSON.stringify(sent.result).slice(0, 300)}`);
  return { id: t.id, elapsedMs: sent.elapsedMs };
}

interface ToolCallRecord {
  task_id: string;
  status: string;
  duration_ms: number | null;
  exit_code: number | null;
  work_id?: string;
}

function toolCalls(door: DoorProcess): Map<string, ToolCallRecord> {
  const byTask = new Map<string, ToolCallRecord>();
  for (const line of readFileSync(path.join(door.recordsDir, 'trace.jsonl'), 'utf8').split('\n')) {
    if (!line.includes('"type":"tool_call"')) continue;
    const record = JSON.parse(line) as ToolCallRecord;
    byTask.set(record.task_id, record);
  }
  return byTask;
}

async function startedAtMs(file: string): Promise<number> {
  const deadline = performance.now() + 5_000;
  for (;;) {
    if (existsSync(file)) {
      const text = readFileSync(file, 'utf8').trim();
      if (/^\d{19}$/.test(text)) return Number(BigInt(text) / 1000n) / 1000;
    }
    if (performance.now() > deadline) throw new Error(`the background command never wrote ${file}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

class Side {
  readonly taskMs: number[] = [];
  readonly taskIds: string[] = [];
  readonly startedMs: number[] = [];
  readonly answeredMs: number[] = [];

  constructor(readonly door: DoorProcess) {}

  async foreground(measured: boolean): Promise<void> {
    const done = await task(this.door, 'shell fg');
    if (!measured) return;
    this.taskMs.push(done.elapsedMs);
    this.taskIds.push(done.id);
  }

  async background(n: number, measured: boolean): Promise<void> {
    const sentAt = wallNowMs();
    const done = await task(this.door, `shell bg ${n}`);
    const started = await startedAtMs(path.join(this.door.recordsDir, 'work', `bg-${n}`));
    if (!measured) return;
    this.startedMs.push(started - sentAt);
    this.answeredMs.push(done.elapsedMs - GRACE_SECS * 1000);
  }

  figures(): ShellSandboxSide {
    const calls = toolCalls(this.door);
    const commandMs: number[] = [];
    let moved = 0;
    for (const id of this.taskIds) {
      const call = calls.get(id);
      if (call === undefined || call.status !== 'passed')
        throw new Error(`task ${id}: its bash call ${call ? `failed: ${JSON.stringify(call)}` : 'is not in trace.jsonl'}`);
      if (call.work_id !== undefined) moved += 1;
      else if (call.exit_code !== 0) throw new Error(`task ${id}: \`${FOREGROUND_COMMAND}\` exited ${call.exit_code}`);
      if (call.duration_ms !== null) commandMs.push(call.duration_ms);
    }
    return {
      taskMs: quantiles(this.taskMs),
      commandMs: quantiles(commandMs),
      backgroundStartedMs: quantiles(this.startedMs),
      backgroundAnsweredMs: quantiles(this.answeredMs),
      movedToBackground: moved,
    };
  }
}

/** Why the sandbox cannot be measured here, from the door's own refusal (docs/sandbox.md), or null when it can. */
function refusal(error: unknown): string | null {
  const message = error instanceof Error ? error.message : String(error);
  const said = message.match(/allowed: a shell only where its commands can be sandboxed, and here ([^\n]*?): install bubblewrap/);
  return said ? said[1] : null;
}

export async function measureShellSandbox(root: string, options: ShellSandboxOptions, log: (line: string) => void): Promise<ShellSandboxMeasurement> {
  if (resolveOnPath('bwrap', process.env.PATH ?? '') === null) {
    return { skipped: 'bubblewrap (bwrap) is not on PATH (apt-get install -y bubblewrap)', pass: null };
  }
  log('shell sandbox: starting a sandboxed door, an unsandboxed one, and a sandboxed one that lists a destination');
  let sandboxedDoor: DoorProcess;
  try {
    sandboxedDoor = await startDoor({ home: path.join(root, 'home-shell-sandbox-on'), capsuleDir: writeCapsule(path.join(root, 'shell-sandbox-on'), 'on') });
  } catch (error) {
    const why = refusal(error);
    if (why === null) throw error;
    return { skipped: `the door refused the sandboxed capsule: ${why}`, pass: null };
  }
  const doors: DoorProcess[] = [sandboxedDoor];
  try {
    const unsandboxedDoor = await startDoor({
      home: path.join(root, 'home-shell-sandbox-off'),
      capsuleDir: writeCapsule(path.join(root, 'shell-sandbox-off'), 'off'),
    });
    doors.push(unsandboxedDoor);
    const destinationDoor = await startDoor({
      home: path.join(root, 'home-shell-sandbox-net'),
      capsuleDir: writeCapsule(path.join(root, 'shell-sandbox-net'), 'with-destination'),
    });
    doors.push(destinationDoor);
    const on = new Side(sandboxedDoor);
    const off = new Side(unsandboxedDoor);
    const net = new Side(destinationDoor);
    // One task at a time, the doors taking turns and the order rotated every round, so outside load falls on all.
    const round = async (i: number, sides: Side[], run: (side: Side) => Promise<void>) => {
      for (let k = 0; k < sides.length; k++) await run(sides[(i + k) % sides.length]!);
    };
    log(`shell sandbox: ${options.warmup} + ${options.calls} foreground calls per door`);
    for (let i = 0; i < options.warmup; i++) await round(i, [on, off, net], (side) => side.foreground(false));
    for (let i = 0; i < options.calls; i++) await round(i, [on, off, net], (side) => side.foreground(true));
    const backgroundWarmup = 2;
    log(`shell sandbox: ${backgroundWarmup} + ${options.backgroundCalls} background starts per door`);
    for (let i = 0; i < backgroundWarmup + options.backgroundCalls; i++) await round(i, [on, off], (side) => side.background(i, i >= backgroundWarmup));
    const sandboxed = on.figures();
    const unsandboxed = off.figures();
    const { taskMs, commandMs } = net.figures();
    const addedTaskMs = added(sandboxed.taskMs, unsandboxed.taskMs);
    const addedWithDestinationTaskMs = added(taskMs, unsandboxed.taskMs);
    return {
      skipped: null,
      calls: options.calls,
      warmup: options.warmup,
      backgroundCalls: options.backgroundCalls,
      command: FOREGROUND_COMMAND,
      graceSecs: GRACE_SECS,
      sandboxed,
      unsandboxed,
      withDestination: { taskMs, commandMs },
      addedTaskMs,
      addedCommandMs: added(sandboxed.commandMs, unsandboxed.commandMs),
      addedBackgroundStartedMs: added(sandboxed.backgroundStartedMs, unsandboxed.backgroundStartedMs),
      addedBackgroundAnsweredMs: added(sandboxed.backgroundAnsweredMs, unsandboxed.backgroundAnsweredMs),
      addedWithDestinationTaskMs,
      target: TARGETS.shellSandboxAddedP50Ms,
      targetWithDestination: TARGETS.shellSandboxNetworkAddedP50Ms,
      pass: addedTaskMs.p50 <= TARGETS.shellSandboxAddedP50Ms && addedWithDestinationTaskMs.p50 <= TARGETS.shellSandboxNetworkAddedP50Ms,
    };
  } finally {
    await Promise.all(doors.map((door) => door.stop()));
  }
}

const pq = (q: Quantiles) => `${q.p50.toFixed(2)} / ${q.p99.toFixed(2)}`;
const signed = (n: number) => `${n >= 0 ? '+' : '−'}${Math.abs(n).toFixed(2)}`;

/** The section's lines for the bench's table (report.ts) and for `--shell-sandbox` alone. */
export function shellSandboxLines(m: ShellSandboxMeasurement): string[] {
  if (m.skipped !== null) return [`Command sandbox's cost: SKIPPED — ${m.skipped}; nothing measured`];
  const rows: [string, string, string, string][] = [
    ['  p50 / p99 ms', 'sandboxed (bwrap)', 'sandbox: off', 'added'],
    [
      `  task with one foreground \`${m.command}\` (client)`,
      pq(m.sandboxed.taskMs),
      pq(m.unsandboxed.taskMs),
      `${signed(m.addedTaskMs.p50)} / ${signed(m.addedTaskMs.p99)}`,
    ],
    [
      `  … in a capsule listing ${LISTED_DESTINATION} (client)`,
      pq(m.withDestination.taskMs),
      pq(m.unsandboxed.taskMs),
      `${signed(m.addedWithDestinationTaskMs.p50)} / ${signed(m.addedWithDestinationTaskMs.p99)}`,
    ],
    [
      '  its bash call (tool_call duration_ms)',
      pq(m.sandboxed.commandMs),
      pq(m.unsandboxed.commandMs),
      `${signed(m.addedCommandMs.p50)} / ${signed(m.addedCommandMs.p99)}`,
    ],
    [
      '  background command started (request → its first instruction)',
      pq(m.sandboxed.backgroundStartedMs),
      pq(m.unsandboxed.backgroundStartedMs),
      `${signed(m.addedBackgroundStartedMs.p50)} / ${signed(m.addedBackgroundStartedMs.p99)}`,
    ],
    [
      `  background task answered, less the ${m.graceSecs} s grace`,
      pq(m.sandboxed.backgroundAnsweredMs),
      pq(m.unsandboxed.backgroundAnsweredMs),
      `${signed(m.addedBackgroundAnsweredMs.p50)} / ${signed(m.addedBackgroundAnsweredMs.p99)}`,
    ],
  ];
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  const moved = m.sandboxed.movedToBackground + m.unsandboxed.movedToBackground;
  return [
    `Command sandbox's cost: two doors of one capsule (script driver, bash), one with capabilities.shell.sandbox: off; ${m.calls} foreground calls per door after ${m.warmup} unmeasured, ${m.backgroundCalls} background starts, one task at a time, alternating:`,
    ...rows.map((r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('   ')),
    ...(moved > 0 ? [`  NOTE: ${moved} foreground call(s) ran past the ${m.graceSecs} s grace and moved to the background (the machine is very busy)`] : []),
    `Command sandbox: ${signed(m.addedTaskMs.p50)} ms added to a foreground call at p50   (target ≤ ${m.target} ms)   ${m.addedTaskMs.p50 <= m.target ? 'PASS' : 'MISS'}`,
    `Command sandbox with a listed destination: ${signed(m.addedWithDestinationTaskMs.p50)} ms added at p50   (target ≤ ${m.targetWithDestination} ms)   ${m.addedWithDestinationTaskMs.p50 <= m.targetWithDestination ? 'PASS' : 'MISS'}`,
  ];
}

export function shellSandboxJson(m: ShellSandboxMeasurement): Record<string, unknown> {
  return m.skipped !== null ? { skipped: m.skipped, pass: null } : { ...m };
}
