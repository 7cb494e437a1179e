/** The bench's capsule: the script driver with a rule that answers at once, tasks queued (task_acceptance: queue). */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Task text the bench sends; the script's first rule matches it and answers without pause, tools or chunks. */
export const BENCH_TASK_TEXT = 'bench ping';

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
