/** The bench's capsule: the script driver with a rule that answers at once, tasks queued (task_acceptance: queue). */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Task text the bench sends; the script's first rule matches it and answers without pause, tools or chunks. */
export const BENCH_TASK_TEXT = 'bench ping';

/** Text chunks of the streamed task (`bench stream 100`), as the SDK reference's executor streams them too. */
const STREAM_CHUNKS = 100;
export const STREAM_TASK_TEXT = `bench stream ${STREAM_CHUNKS}`;

const MANIFEST = `name: bench
version: 0.1.0
lifecycle:
  task_acceptance: queue
inference:
  driver: script
  script: script.yaml
  max_turns: 2
`;

const SCRIPT = `rules:
  - match: '^bench ping$'
    turns:
      - answer: pong
  - match: '^bench stream ${STREAM_CHUNKS}$'
    turns:
      - text: ["x"]
        repeat: ${STREAM_CHUNKS}
        answer: stream over
default:
  turns:
    - answer: "no rule for: {{task.text}}"
`;

export function writeCapsule(dir: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'murmur.yaml'), MANIFEST);
  writeFileSync(path.join(dir, 'script.yaml'), SCRIPT);
  return dir;
}
