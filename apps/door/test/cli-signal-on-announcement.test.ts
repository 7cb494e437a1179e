/**
 * A caller may signal `mur run` the moment it reads the announcement: the door, a formation's supervisor and a
 * formation member each take SIGTERM from before they announce, so they close and exit 0 rather than die of the
 * signal with their registry entries left behind and, for a supervisor, its members left to notice it gone. The
 * signal goes as soon as the announcement is read, several times over, since the window it raced was microseconds.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { makeCapsule, manifestYaml, MUR_CLI, tempDir } from './support/door-process.js';
import { forkMember, makeFormation, memberManifest, nextMessage } from './support/formation.js';
import { isAlive, sleep } from './support/tasks.js';

const SCRIPT = 'default:\n  turns:\n    - answer: ok\n';

function exitOf(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

/** Spawns `mur ARGS`, and sends SIGTERM in the same turn as the first line of stdout matching `announcement`. */
async function signalOnAnnouncement(
  args: string[],
  home: string,
  announcement: RegExp,
): Promise<{ line: string; exit: { code: number | null; signal: NodeJS.Signals | null } }> {
  const child = spawn(process.execPath, [MUR_CLI, ...args], { env: { ...process.env, MURMUR_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = exitOf(child);
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (text) => {
      if (!announcement.test(text)) return;
      child.kill('SIGTERM');
      resolve(text);
    });
    void exited.then(() => reject(new Error(`mur ${args.join(' ')} exited before announcing: ${stderr}`)));
  });
  return { line, exit: await exited };
}

const registered = (home: string) => readdirSync(path.join(home, 'sessions')).filter((f) => f.endsWith('.json'));

/** Runs trial 0 … count-1, `together` at a time: the same trials as one after the other, in less wall time. */
async function trials(count: number, together: number, trial: (i: number) => Promise<void>): Promise<void> {
  for (let first = 0; first < count; first += together) {
    await Promise.all(Array.from({ length: Math.min(together, count - first) }, (_, k) => trial(first + k)));
  }
}

test('mur run closes and exits 0 on a SIGTERM sent the moment it announces, its registry entry gone', async () => {
  const capsule = makeCapsule(manifestYaml(), SCRIPT);
  await trials(10, 2, async (i) => {
    const home = tempDir('home');
    const { exit } = await signalOnAnnouncement(['run', capsule, '--json'], home, /^\{/);
    assert.deepEqual(exit, { code: 0, signal: null }, `run ${i + 1}`);
    assert.deepEqual(registered(home), [], `run ${i + 1}: the session is unregistered`);
  });
});

test('a formation stops its members and exits 0 on a SIGTERM sent the moment it announces', async () => {
  const callee = (name: string) => ({ manifest: memberManifest(name, { callee: true }), script: SCRIPT });
  const roster = makeFormation(
    'name: trio\nentry: lead\nmembers:\n  lead: { capsule: ./lead }\n  helper: { capsule: ./helper }\nrules:\n  - from: lead\n    to: [helper]\n',
    {
      lead: { manifest: memberManifest('lead'), script: SCRIPT },
      helper: callee('helper'),
    },
  );
  await trials(6, 2, async (i) => {
    const home = tempDir('home');
    const { line, exit } = await signalOnAnnouncement(['run', '--roster', roster, '--json'], home, /^\{/);
    const members = (JSON.parse(line) as { members: { member: string; pid: number }[] }).members;
    assert.deepEqual(exit, { code: 0, signal: null }, `run ${i + 1}`);
    // The supervisor waits for its members: none outlives it.
    for (const m of members) assert.equal(isAlive(m.pid), false, `run ${i + 1}: ${m.member} exited with the supervisor`);
    await sleep(0);
    assert.deepEqual(registered(home), [], `run ${i + 1}: the members are unregistered`);
  });
});

test('a formation member closes and exits 0 on a SIGTERM sent the moment it announces', async () => {
  const roster = makeFormation('name: solo\nentry: only\nmembers:\n  only: { capsule: ./only }\n', {
    only: { manifest: memberManifest('only'), script: SCRIPT },
  });
  await trials(6, 2, async (i) => {
    const home = tempDir('home');
    const member = forkMember(roster, 'only', home);
    const exited = exitOf(member);
    await nextMessage(member, 'announced');
    member.kill('SIGTERM');
    assert.deepEqual(await exited, { code: 0, signal: null }, `run ${i + 1}`);
  });
});
