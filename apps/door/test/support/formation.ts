/** Test harness for formations: rosters of real capsules, `mur run --roster` as a real supervisor process. */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after } from 'node:test';
import { spawnMur, type MurProcess } from './client-cli.js';
import { MUR_CLI, tempDir } from './door-process.js';
import { assertNoAddressToModel } from './trace-schema-check.js';

/** Every member door the file's formations started: once its tests are done, no tool result they handed a model carries an address. */
const memberRecords = new Set<string>();
after(() => {
  for (const dir of memberRecords) assertNoAddressToModel(dir);
});

export interface MemberSpec {
  /** murmur.yaml's text (its name is the member's). */
  manifest: string;
  script?: string;
}

/** Writes roster.yaml and one capsule folder per member; returns roster.yaml's path. */
export function makeFormation(roster: string, members: Record<string, MemberSpec>, files: Record<string, string> = {}): string {
  const dir = tempDir('formation');
  for (const [name, spec] of Object.entries(members)) {
    mkdirSync(path.join(dir, name));
    writeFileSync(path.join(dir, name, 'murmur.yaml'), spec.manifest);
    if (spec.script !== undefined) writeFileSync(path.join(dir, name, 'script.yaml'), spec.script);
  }
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  writeFileSync(path.join(dir, 'roster.yaml'), roster);
  return path.join(dir, 'roster.yaml');
}

/** A member's manifest: a script capsule, optionally a callee (peer tasks accepted) and with extra YAML. */
export function memberManifest(
  name: string,
  opts: { callee?: boolean; acceptance?: 'single' | 'queue'; allow?: string[]; lifecycle?: string[]; maxTurns?: number; extra?: string[] } = {},
): string {
  return [
    `name: ${name}`,
    'version: 0.1.0',
    'lifecycle:',
    `  task_acceptance: ${opts.acceptance ?? 'single'}`,
    ...(opts.lifecycle ?? []).map((l) => `  ${l}`),
    'inference:',
    '  driver: script',
    '  script: script.yaml',
    `  max_turns: ${opts.maxTurns ?? 8}`,
    'capabilities:',
    '  network:',
    `    allow: [${(opts.allow ?? ['localhost']).join(', ')}]`,
    ...(opts.callee ? ['exports:', '  peer_tasks:', '    accept: true'] : []),
    ...(opts.extra ?? []),
    '',
  ].join('\n');
}

interface AnnouncedFormation {
  formation: string;
  pid: number;
  entry: string;
  members: { member: string; sessionId: string; url: string; pid: number; recordsDir: string }[];
  launchTaskId: string | null;
}

export interface FormationProcess extends AnnouncedFormation {
  mur: MurProcess;
  member(name: string): AnnouncedFormation['members'][number];
}

/** `mur run --roster FILE --json`, resolved once the formation is announced. */
export async function runFormation(rosterFile: string, home: string, args: string[] = [], env: Record<string, string> = {}): Promise<FormationProcess> {
  const mur = spawnMur(['run', '--roster', rosterFile, '--json', ...args], home, env);
  const line = await Promise.race([
    mur.waitFor(/^\{.*\}$/m, 'the formation announced', { timeoutMs: 60_000 }),
    mur.exited.then((r) => {
      throw new Error(`mur run --roster exited ${r.code} before announcing: ${r.stderr}`);
    }),
  ]);
  const announced = JSON.parse(/^\{.*\}$/m.exec(line)![0]) as AnnouncedFormation;
  for (const m of announced.members) memberRecords.add(m.recordsDir);
  return { ...announced, mur, member: (name) => announced.members.find((m) => m.member === name)! };
}

/** One member's process, started as the supervisor starts it, with the test as its supervisor over IPC. */
export function forkMember(rosterFile: string, member: string, home: string, env: Record<string, string> = {}): ChildProcess {
  return fork(MUR_CLI, ['run', '--roster', rosterFile, '--member', member], {
    env: { ...process.env, ...env, MURMUR_HOME: home },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
}

/** The next IPC message of a kind from a member process. */
export function nextMessage<T extends { kind: string }>(child: ChildProcess, kind: string, timeoutMs = 30_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no '${kind}' message within ${timeoutMs} ms`)), timeoutMs);
    const onMessage = (message: { kind?: string }) => {
      if (message?.kind !== kind) return;
      clearTimeout(timer);
      child.off('message', onMessage);
      resolve(message as T);
    };
    child.on('message', onMessage);
  });
}
