/**
 * The streaming measurements' capsule: the script driver with two fan-out rules (one inference call streaming
 * `fanOutChunks`, or `fanOutWideChunks`, one-character text chunks with no pace: one burst) and a stall rule (`stallChunks` chunks of
 * `stallChunkBytes` characters, `stallBurst` per inference call, a 1 ms sleep between calls so that a socket that
 * stopped reading backs up between bursts — a burst written within one tick is batched whole, docs/streaming.md).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { BenchConfig } from './config.js';

export const FANOUT_TASK_TEXT = 'bench fanout';
/** The wide fan-out's task (1,000 readers by default): the same rule with its own chunk count. */
export const FANOUT_WIDE_TASK_TEXT = 'bench fanout wide';
export const STALL_TASK_TEXT = 'bench stall';

type StreamSizes = Pick<BenchConfig, 'fanOutChunks' | 'fanOutWideChunks' | 'stallChunks' | 'stallBurst' | 'stallChunkBytes'>;

const stallCalls = (sizes: StreamSizes) => sizes.stallChunks / sizes.stallBurst;

/**
 * The events a WatchSession gets of the fan-out task by docs/streaming.md: SUBMITTED, `inference turn 1`, the chunks,
 * the final empty text frame, the response artifact, COMPLETED. The bench counts them on a run and uses its count;
 * this is the figure it is checked against.
 */
export const documentedFanOutEvents = (chunks: number) => chunks + 5;

/**
 * The events of the stall task: SUBMITTED; per chunk call `inference turn n`, its chunks, the final text; then the
 * answering call: `inference turn n`, the whole answer as a final text frame, the response artifact, COMPLETED.
 */
export const stallTaskEvents = (sizes: StreamSizes) => 1 + stallCalls(sizes) * (sizes.stallBurst + 2) + 4;

export function writeStreamCapsule(dir: string, sizes: StreamSizes): string {
  const chunk = 'y'.repeat(sizes.stallChunkBytes);
  const stallTurns = Array.from(
    { length: stallCalls(sizes) },
    () => `      - sleep_ms: 1\n        text: ["${chunk}"]\n        repeat: ${sizes.stallBurst}\n`,
  ).join('');
  const manifest = `name: bench-streams
version: 0.1.0
lifecycle:
  task_acceptance: queue
inference:
  driver: script
  script: script.yaml
  max_turns: ${stallCalls(sizes) + 2}
`;
  const script = `rules:
  - match: '^${FANOUT_TASK_TEXT}$'
    turns:
      - text: ["x"]
        repeat: ${sizes.fanOutChunks}
        answer: fanout over
  - match: '^${FANOUT_WIDE_TASK_TEXT}$'
    turns:
      - text: ["x"]
        repeat: ${sizes.fanOutWideChunks}
        answer: fanout over
  - match: '^${STALL_TASK_TEXT}$'
    turns:
${stallTurns}      - answer: stall over
default:
  turns:
    - answer: "no rule for: {{task.text}}"
`;
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'murmur.yaml'), manifest);
  writeFileSync(path.join(dir, 'script.yaml'), script);
  return dir;
}
