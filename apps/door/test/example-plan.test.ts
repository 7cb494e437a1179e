/**
 * examples/plan runs as a user runs it — `mur run examples/plan` — and a task asking for a report is answered with
 * one submit-plan call: three shell steps in order, the last reading the first two's output (docs/plans.md).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { taskOf } from './support/assertions.js';
import { type DoorProcess, runDoor } from './support/door-process.js';
import { send } from './support/rpc.js';
import { readTrace } from './support/tasks.js';

const EXAMPLE = fileURLToPath(new URL('../../../../examples/plan/', import.meta.url));

let door: DoorProcess;
after(() => door?.stop());

test('mur run examples/plan: one plan of three steps writes report.md, and the answer shows every step', async () => {
  door = await runDoor(EXAMPLE);
  const task = taskOf(await send(door.url, 'Write me a host report'));
  assert.equal(task.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(task));
  const text: string = task.artifacts.find((a: { artifactId: string }) => a.artifactId === 'response').parts[0].text;
  const report = `# Host report\n\nDate: ${new Date().toISOString().slice(0, 10)}\nSystem: ${execFileSync('uname', ['-s'], { encoding: 'utf8' }).trim()}\n`;
  assert.equal(readFileSync(path.join(door.recordsDir, 'work', 'report.md'), 'utf8'), report);
  assert.ok(text.startsWith('I wrote report.md with one plan:\n\n[submit-plan] step 1 of 3, "today" (bash): passed in '), text);
  assert.ok(text.includes(`Exit code: 0\nStdout:\n${report}\nStderr:\n`), text);
  assert.match(text, /\n\[submit-plan\] The plan ran all 3 steps: 3 passed, in \d+ ms\.$/);
  const trace = readTrace(door.recordsDir);
  assert.deepEqual(
    trace.filter((r) => r.type === 'plan_step').map((r) => [r.step, r.status]),
    [
      ['today', 'passed'],
      ['system', 'passed'],
      ['report', 'passed'],
    ],
  );
  assert.deepEqual(
    trace.filter((r) => r.type === 'tool_call').map((r) => r.tool),
    ['submit-plan'],
  );
});
