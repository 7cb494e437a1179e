/**
 * examples/delegation runs as a user runs it — `mur run examples/delegation/lead` — and its launch task (task.md)
 * delegates to the researcher sub-capsule, which runs a real command in a session of its own under lead's records,
 * posts its completion, and stops; lead answers with the outcome.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { MurmurClient } from '@murmur/client';
import { runMur, until } from './support/client-cli.js';
import { type DoorProcess, runDoor, tempDir } from './support/door-process.js';

const LEAD = fileURLToPath(new URL('../../../../examples/delegation/lead/', import.meta.url));

const traceOf = (dir: string) =>
  existsSync(path.join(dir, 'trace.jsonl'))
    ? readFileSync(path.join(dir, 'trace.jsonl'), 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>)
    : [];

/** What the researcher's command prints: the first localhost line of /etc/hosts, its address. */
function loopbackOfHosts(): string {
  const line = readFileSync('/etc/hosts', 'utf8')
    .split('\n')
    .filter((l) => !l.startsWith('#'))
    .find((l) => l.split(/\s+/).slice(1).includes('localhost'));
  return line?.split(/\s+/)[0] ?? '';
}

let door: DoorProcess;
after(() => door?.stop('SIGKILL'));

test('mur run examples/delegation/lead: task.md is delegated to researcher, and lead answers with its outcome', async () => {
  const home = tempDir('home');
  door = await runDoor(LEAD, [], home);
  assert.match(String(door.launchTaskId), /^tsk_/);
  const lead = new MurmurClient(door.url);
  const task = await until(
    async () => {
      const t = await lead.getTask(door.launchTaskId!);
      return t.status.state === 'TASK_STATE_COMPLETED' ? t : undefined;
    },
    'the launch task completed',
    30_000,
  );
  const text = task.artifacts!.find((a) => a.artifactId === 'response')!.parts[0].text!;
  const start = traceOf(door.recordsDir).find((r) => r.type === 'delegation_start') as Record<string, string>;
  assert.equal(
    text,
    `lead, with the researcher's findings:\n\n[delegate-task] delegation ${start.delegation_id} to researcher ended completed:\n<untrusted-content source=delegation:researcher>\nLoopback on this host is ${loopbackOfHosts()} (the first localhost line of /etc/hosts); packets sent to it never leave the machine.\n</untrusted-content>\n\n[delegate-task] Every delegation this task made has ended, and the outcomes are above. Answer the task with them now.`,
  );
  // The child: its own session under lead's records, its task the text lead handed it, its completion delivered.
  assert.equal(start.child_workdir, path.join(door.recordsDir, 'children', `researcher-${start.delegation_id.slice(4, 20)}`));
  const child = traceOf(start.child_workdir);
  assert.match(String(child.find((r) => r.type === 'task_start')?.text), /^Find out: Which address does loopback traffic use/);
  assert.equal(child.find((r) => r.type === 'tool_call')?.tool, 'bash');
  await until(() => (child.length > 0 && traceOf(start.child_workdir).some((r) => r.type === 'session_end') ? true : undefined), 'the child stopped');
  assert.equal(traceOf(start.child_workdir).find((r) => r.type === 'delegation_completion')?.delivered, true);
  assert.equal(traceOf(door.recordsDir).find((r) => r.type === 'delegation' && r.delegation_id === start.delegation_id)?.status, 'completed');
  // Once the child stopped, mur ps lists lead alone.
  const ps = JSON.parse((await runMur(['ps', '--json'], home)).stdout) as { sessionId: string }[];
  assert.deepEqual(
    ps.map((r) => r.sessionId),
    [door.sessionId],
  );
  assert.equal((await door.stop()).code, 0);
});
