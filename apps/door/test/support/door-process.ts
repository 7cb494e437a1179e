/** Test harness: real doors as real subprocesses (`mur run --json`) on real ports, each with its own MURMUR_HOME. */
import { type ChildProcess, spawn } from 'node:child_process';
import { chownSync, lchownSync, lstatSync, mkdtempSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Stream } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { assertNoAddressToModel, assertTraceOnSchema } from './trace-schema-check.js';
import { stoppedAtEnd } from './leftover-children.js';

/** The `mur` users run (bin/mur.js, which runs the bundle the build makes). */
export const MUR_CLI = fileURLToPath(new URL('../../../bin/mur.js', import.meta.url));
export const REPO_ROOT = fileURLToPath(new URL('../../../../../', import.meta.url));

interface Announced {
  sessionId: string;
  url: string;
  name: string;
  version: string;
  pid: number;
  recordsDir: string;
  launchTaskId: string | null;
}

export interface DoorProcess extends Announced {
  home: string;
  capsuleDir: string;
  child: ChildProcess;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM (or the given signal) and wait for the exit. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Gives a test's folder to `uid` (a door run as a user), links themselves and not what they point to. */
function chownTree(dir: string, uid: number): void {
  chownSync(dir, uid, uid);
  for (const entry of readdirSync(dir)) {
    const full = path.join(dir, entry);
    if (lstatSync(full).isDirectory()) chownTree(full, uid);
    else lchownSync(full, uid, uid);
  }
}

export function tempDir(prefix: string): string {
  return mkdtempSync(path.join(os.tmpdir(), `murmur-${prefix}-`));
}

/** Writes a capsule folder: murmur.yaml, and script.yaml when given, plus any extra files. */
export function makeCapsule(manifest: string, script?: string, files: Record<string, string> = {}): string {
  const dir = tempDir('capsule');
  writeFileSync(path.join(dir, 'murmur.yaml'), manifest);
  if (script !== undefined) writeFileSync(path.join(dir, 'script.yaml'), script);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

/** A manifest with the given lifecycle.task_acceptance and extra YAML appended. */
export function manifestYaml(opts: { name?: string; acceptance?: 'single' | 'queue' | 'none'; extra?: string; maxTurns?: number } = {}): string {
  return [
    `name: ${opts.name ?? 'test-capsule'}`,
    'version: 0.1.0',
    'lifecycle:',
    `  task_acceptance: ${opts.acceptance ?? 'queue'}`,
    'inference:',
    '  driver: script',
    '  script: script.yaml',
    `  max_turns: ${opts.maxTurns ?? 8}`,
    'capabilities:',
    '  shell:',
    '    allow: [bash]',
    opts.extra ?? '',
  ].join('\n');
}

export interface RunOptions {
  /** The umask the door starts under (through sh, which then execs node, so the pid is the door's). */
  umask?: string;
  /** Extra flags for node itself, such as --max-old-space-size. */
  nodeFlags?: string[];
  env?: Record<string, string>;
  /** A command the door is started through, which execs its last arguments (node and mur's): perl adding a key to the session keyring, say. */
  launcher?: string[];
  /** Descriptors the door inherits past 0–2, as its own parent might have left them open (3 on, in order). */
  inherit?: (number | Stream | 'ignore')[];
  /** The uid (and gid) the door runs as, when the test runs as root: its MURMUR_HOME and the capsule folder are made that user's. */
  user?: number;
}

/** Runs `mur run DIR --json` and resolves with the announced session once the door listens. */
export async function runDoor(capsuleDir: string, args: string[] = [], home = tempDir('home'), options: RunOptions = {}): Promise<DoorProcess> {
  const argv = [...(options.nodeFlags ?? []), MUR_CLI, 'run', capsuleDir, '--json', ...args];
  const [shell, shellArgs] =
    options.umask === undefined ? [process.execPath, argv] : ['/bin/sh', ['-c', `umask ${options.umask} && exec "$0" "$@"`, process.execPath, ...argv]];
  const [command, ...commandArgs] = [...(options.launcher ?? []), shell, ...shellArgs];
  if (options.user !== undefined) for (const dir of [home, capsuleDir]) chownTree(dir, options.user);
  const child = stoppedAtEnd(
    spawn(command!, commandArgs, {
      env: { ...process.env, MURMUR_HOME: home, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe', ...(options.inherit ?? [])],
      ...(options.user === undefined ? {} : { uid: options.user, gid: options.user }),
    }),
  );
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const lines = createInterface({ input: child.stdout! });
  const first = await Promise.race([
    new Promise<string>((resolve) => lines.once('line', resolve)),
    exited.then(({ code }) => {
      throw new Error(`mur run exited ${code} before announcing: ${stderr}`);
    }),
  ]);
  const announced = JSON.parse(first) as Announced;
  return {
    ...announced,
    home,
    capsuleDir,
    child,
    stderr: () => stderr,
    exited,
    stop: async (signal: NodeJS.Signals = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const exit = await exited;
      assertTraceOnSchema(announced.recordsDir);
      assertNoAddressToModel(announced.recordsDir);
      return exit;
    },
  };
}
