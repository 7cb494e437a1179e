/**
 * What the governors cost (docs/benchmarks.md, "The governors' cost"), on real doors with the script driver:
 * - the on_tool_call decision point: two doors of one capsule, one with a hook (`true`, which allows every call), tasks
 *   of one foreground bash call (`true`) one at a time, alternating; p50/p99 of each door's task wall time and the
 *   difference — a hook is one more command in the sandbox per tool call;
 * - a compaction: tasks whose third call is preceded by an elide-only compaction (two 8 KB tool outputs under a
 *   scripted 8,000-token window at threshold 0.5); p50/p99 of the compaction records' duration_ms.
 * Without bubblewrap (or where it cannot run a command) the measurement is skipped with the reason, not failed.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { METHOD } from '@murmur/protocol';
import { resolveOnPath } from '../src/tools/sandbox/binary-path.js';
import { type DoorProcess, startDoor } from './door-process.js';
import { rpc, sendParams } from './rpc-client.js';
import { quantile, round, sortedCopy } from './stats.js';

interface Quantiles {
  p50: number;
  p99: number;
  samples: number;
}

export type GovernorsMeasurement =
  | { skipped: string }
  | {
      skipped: null;
      calls: number;
      withHookMs: Quantiles;
      withoutHookMs: Quantiles;
      /** What the decision point adds to a task with one tool call. */
      addedPerToolCallMs: { p50: number; p99: number };
      compactions: number;
      compactionMs: Quantiles;
    };

const SCRIPT = `rules:
  - match: '^one call$'
    turns:
      - tools:
          - tool: bash
            input: { command: "true" }
        answer: ran
  - match: '^compact$'
    turns:
      - tools:
          - tool: bash
            input: { command: "head -c 8000 /dev/zero | tr '\\\\0' x" }
      - tools:
          - tool: bash
            input: { command: "head -c 8000 /dev/zero | tr '\\\\0' y" }
      - answer: compacted
default:
  turns:
    - answer: none
`;

function writeCapsule(dir: string, withHook: boolean): string {
  mkdirSync(dir, { recursive: true });
  const hooks = withHook ? 'hooks:\n  on_tool_call:\n    - name: allow-all\n      command: "true"\n' : '';
  writeFileSync(
    path.join(dir, 'murmur.yaml'),
    `name: bench-governors\nversion: 0.1.0\nlifecycle:\n  task_acceptance: queue\ninference:\n  driver: scripted\n  max_turns: 5\n  compaction:\n    threshold: 0.5\n    keep_turns: 1\n  choices:\n    scripted:\n      driver: script\n      script: script.yaml\n      context_window: 8000\ncapabilities:\n  shell:\n    allow: [bash]\n${hooks}`,
  );
  writeFileSync(path.join(dir, 'script.yaml'), SCRIPT);
  return dir;
}

function quantiles(values: number[]): Quantiles {
  const sorted = sortedCopy(values);
  return { p50: round(quantile(sorted, 0.5), 2), p99: round(quantile(sorted, 0.99), 2), samples: values.length };
}

let messages = 0;
async function completed(door: DoorProcess, text: string): Promise<number> {
  const sent = await rpc(door.url, METHOD.SendMessage, sendParams(text, `msg-governors-${++messages}`));
  const task = sent.result.task as { status?: { state?: unknown } } | undefined;
  if (task?.status?.state !== 'TASK_STATE_COMPLETED') throw new Error(`'${text}' did not complete: ${JSON.stringify(sent.result).slice(0, 300)}`);
  return sent.elapsedMs;
}

function compactionDurations(door: DoorProcess): number[] {
  return readFileSync(path.join(door.recordsDir, 'trace.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.includes('"type":"compaction"'))
    .map((line) => JSON.parse(line) as { duration_ms: number; failed?: string })
    .map((record) => {
      if (record.failed !== undefined) throw new Error(`a compaction failed: ${record.failed}`);
      return record.duration_ms;
    });
}

export async function measureGovernors(
  root: string,
  options: { calls: number; warmup: number; compactions: number },
  log: (line: string) => void,
): Promise<GovernorsMeasurement> {
  if (resolveOnPath('bwrap', process.env.PATH ?? '') === null) return { skipped: 'bubblewrap (bwrap) is not on PATH (apt-get install -y bubblewrap)' };
  log('governors: starting a door with an on_tool_call hook and one without');
  const hooked = await startDoor({ home: path.join(root, 'home-governors-hook'), capsuleDir: writeCapsule(path.join(root, 'governors-hook'), true) });
  try {
    const plain = await startDoor({ home: path.join(root, 'home-governors-plain'), capsuleDir: writeCapsule(path.join(root, 'governors-plain'), false) });
    try {
      const withHook: number[] = [];
      const without: number[] = [];
      for (let i = 0; i < options.warmup + options.calls; i++) {
        // One task at a time, the doors alternating and the order swapped every pair, so outside load falls on both.
        for (const [door, into] of i % 2 === 0
          ? ([
              [hooked, withHook],
              [plain, without],
            ] as const)
          : ([
              [plain, without],
              [hooked, withHook],
            ] as const)) {
          const ms = await completed(door, 'one call');
          if (i >= options.warmup) into.push(ms);
        }
      }
      log(`governors: ${options.compactions} compacting tasks`);
      for (let i = 0; i < options.compactions; i++) await completed(plain, 'compact');
      const durations = compactionDurations(plain);
      const withHookMs = quantiles(withHook);
      const withoutHookMs = quantiles(without);
      return {
        skipped: null,
        calls: options.calls,
        withHookMs,
        withoutHookMs,
        addedPerToolCallMs: { p50: round(withHookMs.p50 - withoutHookMs.p50, 2), p99: round(withHookMs.p99 - withoutHookMs.p99, 2) },
        compactions: durations.length,
        compactionMs: quantiles(durations),
      };
    } finally {
      await plain.stop();
    }
  } finally {
    await hooked.stop();
  }
}

const pq = (q: Quantiles) => `${q.p50.toFixed(2)} / ${q.p99.toFixed(2)}`;

/** The section's lines for the bench's output and for `--governors` alone. */
export function governorsLines(m: GovernorsMeasurement): string[] {
  if (m.skipped !== null) return [`Governors' cost: SKIPPED — ${m.skipped}; nothing measured`];
  return [
    `Governors' cost (script driver, bash in the sandbox; p50 / p99 ms):`,
    `  task with one tool call, on_tool_call hook \`true\`   ${pq(m.withHookMs)}`,
    `  the same task, no hook                              ${pq(m.withoutHookMs)}`,
    `  the decision point per tool call                    ${m.addedPerToolCallMs.p50.toFixed(2)} / ${m.addedPerToolCallMs.p99.toFixed(2)} added   (${m.calls} tasks per door)`,
    `  one compaction (elide two 8 KB outputs)             ${pq(m.compactionMs)}   (${m.compactions} compactions)`,
  ];
}
