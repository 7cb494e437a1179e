/** Helpers for the task-behaviour tests: manifests with lifecycle options, task calls, trace reading, process checks. */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { MUR_CLI, tempDir } from './door-process.js';
import { type HttpAnswer, JSON_HEADERS, rpc, userMessage } from './rpc.js';

/** RFC 3339 UTC with milliseconds and a Z, as the door writes every status timestamp. */
export const UTC_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const TASK_ID = /^tsk_[0-9a-f]{32}$/;
export const CONTEXT_ID = /^ctx_[0-9a-f]{32}$/;
export const DOOR_URI = 'https://docs.murmur.nexus/reference/agent-card/#murmur-door-v1';

/** A manifest like manifestYaml's, with lifecycle options placed under lifecycle. */
/**
 * `sandbox: 'off'` opts the capsule out of the command sandbox (docs/sandbox.md): for the suites that read the pids
 * their commands write ($$, $!), which in the sandbox are its own PID namespace's, and test the process-group
 * machinery both modes share.
 */
export function lifecycleManifest(
  opts: { acceptance?: 'single' | 'queue' | 'none'; graceSecs?: number; maxTurns?: number; name?: string; sandbox?: 'off' } = {},
): string {
  return [
    `name: ${opts.name ?? 'task-capsule'}`,
    'version: 0.1.0',
    'lifecycle:',
    `  task_acceptance: ${opts.acceptance ?? 'queue'}`,
    ...(opts.graceSecs !== undefined ? [`  shell_grace_secs: ${opts.graceSecs}`] : []),
    'inference:',
    '  driver: script',
    '  script: script.yaml',
    `  max_turns: ${opts.maxTurns ?? 8}`,
    'capabilities:',
    '  shell:',
    '    allow: [bash]',
    ...(opts.sandbox === 'off' ? ['    sandbox: off'] : []),
    '',
  ].join('\n');
}

export const getTask = (url: string, id: string) => rpc(url, 'GetTask', { id });
export const cancelTask = (url: string, id: string) => rpc(url, 'CancelTask', { id });
export const listTasks = (url: string, params: Record<string, unknown> = {}) => rpc(url, 'ListTasks', params);

/** SendMessage with a full message (e.g. a reply naming taskId) and an optional configuration. */
export function sendMessage(url: string, text: string, message: Record<string, unknown> = {}, configuration?: Record<string, unknown>): Promise<HttpAnswer> {
  return rpc(url, 'SendMessage', { message: userMessage(text, message), ...(configuration ? { configuration } : {}) });
}

/** A held SendMessage whose client can walk away: abort() disconnects before the answer arrives. */
export function sendAbortable(url: string, text: string, extra: Record<string, unknown> = {}): { abort(): void; done: Promise<unknown> } {
  const controller = new AbortController();
  const body = JSON.stringify({ jsonrpc: '2.0', id: 'held', method: 'SendMessage', params: { message: userMessage(text, extra) } });
  const done = fetch(`${url}/`, { method: 'POST', headers: JSON_HEADERS, body, signal: controller.signal }).then(
    (r) => r.text(),
    (error: unknown) => error,
  );
  return { abort: () => controller.abort(), done };
}

/** Every task of a listing, walking nextPageToken to the end. */
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON shapes
export async function listAll(url: string, params: Record<string, unknown> = {}): Promise<any[]> {
  const tasks = [];
  let pageToken = '';
  for (;;) {
    const answer = await listTasks(url, { ...params, pageToken });
    if (!answer.json?.result) throw new Error(`ListTasks failed: ${answer.text}`);
    tasks.push(...answer.json.result.tasks);
    pageToken = answer.json.result.nextPageToken;
    if (pageToken === '') return tasks;
  }
}

export interface TraceRecord {
  ts: string;
  type: string;
  [key: string]: unknown;
}

export function readTrace(recordsDir: string): TraceRecord[] {
  const file = path.join(recordsDir, 'trace.jsonl');
  if (!existsSync(file)) return [];
  return completeLines(readFileSync(file, 'utf8')).map((line) => JSON.parse(line) as TraceRecord);
}

/**
 * The whole lines of a file a door may be appending to: a reader can see a record's line half written (one write(2)
 * is not atomic against a concurrent read of a regular file), so the text after the last newline is left for later.
 */
export function completeLines(text: string): string[] {
  return text
    .slice(0, text.lastIndexOf('\n') + 1)
    .split('\n')
    .filter((line) => line !== '');
}

/** Whether a process exists and is not a zombie (an orphan killed in a container may linger unreaped). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Whether any live (non-zombie) process is in the process group. */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch {
    return false;
  }
  try {
    return readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .some((name) => {
        try {
          const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
          const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
          return fields[0] !== 'Z' && Number(fields[2]) === pgid;
        } catch {
          return false;
        }
      });
  } catch {
    return true;
  }
}

/** Reads a whole-number pid a command wrote to a file, once the file holds one. */
export function readPid(file: string): number | undefined {
  if (!existsSync(file)) return undefined;
  const text = readFileSync(file, 'utf8').trim();
  return /^\d+$/.test(text) ? Number(text) : undefined;
}

/** Runs `mur ARGS` to its exit, for launches that are meant to fail. */
export function runMur(args: string[], home = tempDir('home')): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MUR_CLI, ...args], { env: { ...process.env, MURMUR_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr!.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The task a held SendMessage started, found as the seed tells a client to: ListTasks filtered by the message's contextId. */
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON shapes
export async function taskInContext(url: string, contextId: string, state?: string, timeoutMs = 5000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await listTasks(url, { contextId });
    const task = answer.json?.result?.tasks?.[0];
    if (task && (state === undefined || task.status.state === state)) return task;
    if (Date.now() > deadline) throw new Error(`no task${state ? ` in ${state}` : ''} in context ${contextId}`);
    await sleep(20);
  }
}
