/** A capsule whose model does what the task says: the text after `run ` goes to bash, as an injected prompt would make it. */
import assert from 'node:assert/strict';
import type { DoorProcess } from './door-process.js';
import { rpc, userMessage } from './rpc.js';

/** A rule that runs the task's text as a bash command, and answers with its output and exit code. */
export const OBEY = [
  'rules:',
  "  - match: '^run ([\\s\\S]*)$'",
  '    turns:',
  '      - tools:',
  '          - tool: bash',
  '            input: { args: ["-c", "{{match.1}}"] }',
  '        answer: "{{tool.stdout}}\\n{{tool.stderr}}\\nexit={{tool.exit_code}}"',
  'default:',
  '  turns:',
  '    - answer: "no rule"',
  '',
].join('\n');

/**
 * Sends `run echo "RAN <name>"; <command>` and returns the answer's text. The marker is printed first, so an attempt
 * that never ran fails here rather than passing its test.
 */
export async function runAttempt(door: Pick<DoorProcess, 'url'>, name: string, command: string, headers: Record<string, string> = {}): Promise<string> {
  const answer = await rpc(door.url, 'SendMessage', { message: userMessage(`run echo "RAN ${name}"; ${command}`) }, headers);
  const task = answer.json?.result?.task;
  assert.equal(task?.status?.state, 'TASK_STATE_COMPLETED', `${name}: ${answer.text}`);
  const text: string = task.artifacts[0].parts[0].text;
  assert.match(text, new RegExp(`^RAN ${name}$`, 'm'), `${name}: the attempt never ran: ${text}`);
  return text;
}
