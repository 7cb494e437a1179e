/**
 * Harness for the cli-* and client-* tests: `mur` client commands as subprocesses, a door started with extra
 * environment, a TCP proxy that can cut or stall connections, and tiny HTTP servers standing in for other doors.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { completeLines } from './tasks.js';
import { type DoorProcess, MUR_CLI, runDoor } from './door-process.js';
import { stoppedAtEnd } from './leftover-children.js';

export interface MurResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface MurProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves once stdout (or stderr, with `stream: 'stderr'`) matches. */
  waitFor(pattern: RegExp, what: string, options?: { stream?: 'stdout' | 'stderr'; timeoutMs?: number }): Promise<string>;
  exited: Promise<MurResult>;
  kill(signal?: NodeJS.Signals): void;
}

/** Starts `mur <args>` with MURMUR_HOME set, collecting its output as it comes. */
export function spawnMur(args: string[], home: string, env: Record<string, string> = {}): MurProcess {
  const child = stoppedAtEnd(
    spawn(process.execPath, [MUR_CLI, ...args], { env: { ...process.env, MURMUR_HOME: home, ...env }, stdio: ['ignore', 'pipe', 'pipe'] }),
  );
  let stdout = '';
  let stderr = '';
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const listener of [...listeners]) listener();
  };
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    notify();
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    notify();
  });
  let done = false;
  const exited = new Promise<MurResult>((resolve) =>
    child.once('close', (code, signal) => {
      done = true;
      notify();
      resolve({ code, signal, stdout, stderr });
    }),
  );
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    kill: (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
    waitFor: (pattern, what, options = {}) =>
      new Promise<string>((resolve, reject) => {
        const text = () => (options.stream === 'stderr' ? stderr : stdout);
        const check = () => {
          const match = pattern.exec(text());
          if (match) {
            finish();
            resolve(match[0]);
          } else if (done) {
            finish();
            reject(new Error(`mur ${args[0]} exited before ${what}\nstdout:\n${stdout}\nstderr:\n${stderr}`));
          }
        };
        const timer = setTimeout(() => {
          finish();
          reject(new Error(`timed out waiting for ${what}\nstdout:\n${stdout}\nstderr:\n${stderr}`));
        }, options.timeoutMs ?? 10_000);
        const finish = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      }),
  };
}

/** Runs `mur <args>` to its end. */
export async function runMur(args: string[], home: string, options: { env?: Record<string, string>; timeoutMs?: number } = {}): Promise<MurResult> {
  const mur = spawnMur(args, home, options.env);
  const timer = setTimeout(() => mur.kill('SIGKILL'), options.timeoutMs ?? 20_000);
  try {
    return await mur.exited;
  } finally {
    clearTimeout(timer);
  }
}

/** runDoor with extra environment for the door process (MURMUR_HEARTBEAT_MS): spawn copies process.env synchronously. */
export function runDoorWith(capsuleDir: string, options: { env?: Record<string, string>; home?: string; args?: string[] } = {}): Promise<DoorProcess> {
  const saved: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(options.env ?? {})) {
    saved[name] = process.env[name];
    process.env[name] = value;
  }
  try {
    return options.home === undefined ? runDoor(capsuleDir, options.args ?? []) : runDoor(capsuleDir, options.args ?? [], options.home);
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

/** A capsule manifest written whole (the shared manifestYaml cannot add keys under lifecycle). */
export function manifest(options: { name?: string; acceptance?: 'single' | 'queue' | 'none'; lifecycle?: string[]; extra?: string[] } = {}): string {
  return [
    `name: ${options.name ?? 'cli-capsule'}`,
    'version: 0.1.0',
    'lifecycle:',
    `  task_acceptance: ${options.acceptance ?? 'queue'}`,
    ...(options.lifecycle ?? []).map((line) => `  ${line}`),
    'inference:',
    '  driver: script',
    '  script: script.yaml',
    '  max_turns: 8',
    'capabilities:',
    '  shell:',
    '    allow: [bash]',
    ...(options.extra ?? []),
    '',
  ].join('\n');
}

/** Writes a registry entry as `mur run` does, for sessions the tests fake. */
export function registerFake(
  home: string,
  entry: {
    sessionId: string;
    name: string;
    version?: string;
    url: string;
    pid: number;
    startedAt?: string;
    formation?: Record<string, unknown>;
    delegation?: Record<string, unknown>;
  },
): void {
  const dir = path.join(home, 'sessions');
  mkdirSync(dir, { recursive: true });
  const full = {
    version: '0.1.0',
    capsuleDir: '/nonexistent/capsule',
    recordsDir: '/nonexistent/records',
    startedAt: new Date().toISOString(),
    ...entry,
  };
  writeFileSync(path.join(dir, `${entry.sessionId}.json`), `${JSON.stringify(full, null, 2)}\n`);
}

export interface TinyServer {
  url: string;
  /** Every request's method, path, headers and body. */
  requests: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[];
  close(): Promise<void>;
}

/** A tiny HTTP server on 127.0.0.1 that answers each request with `handle`. */
export async function tinyServer(handle: (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void): Promise<TinyServer> {
  const requests: TinyServer['requests'] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on('end', () => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handle(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface ProxiedConnection {
  client: net.Socket;
  upstream: net.Socket;
  stalled: boolean;
  /** It has carried a request. */
  active: boolean;
}

/**
 * A TCP proxy in front of a door. `cutAll` destroys every open connection (the client sees its stream drop; the door
 * only sees a client go away); `refuse` makes new connections close at once; `stallAll` stops forwarding the door's
 * bytes on the open connections while keeping their sockets open.
 */
export class TcpProxy {
  readonly connections = new Set<ProxiedConnection>();
  /** The first bytes each proxied connection sent: its request line and headers. */
  readonly requestHeads: string[] = [];
  accepted = 0;
  /** When the proxy last passed the door's bytes on to a client (performance.now()); 0 before any. */
  lastForwardedAt = 0;
  private refusing = false;
  private server!: net.Server;
  url = '';

  constructor(private readonly target: string) {}

  async start(): Promise<this> {
    const { hostname, port } = new URL(this.target);
    this.server = net.createServer((client) => {
      this.accepted += 1;
      if (this.refusing) {
        client.destroy();
        return;
      }
      const upstream = net.connect(Number(port), hostname);
      const connection: ProxiedConnection = { client, upstream, stalled: false, active: false };
      this.connections.add(connection);
      let head = true;
      client.on('data', (chunk) => {
        if (head) this.requestHeads.push(chunk.toString('latin1'));
        head = false;
        connection.active = true;
        upstream.write(chunk);
      });
      upstream.on('data', (chunk) => {
        if (connection.stalled) return;
        this.lastForwardedAt = performance.now();
        client.write(chunk);
      });
      const close = () => {
        this.connections.delete(connection);
        client.destroy();
        upstream.destroy();
      };
      client.on('close', close);
      upstream.on('close', close);
      client.on('error', () => {});
      upstream.on('error', () => {});
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as net.AddressInfo).port}`;
    return this;
  }

  /** Destroys every open connection, both sides. */
  cutAll(): number {
    const count = this.connections.size;
    for (const c of [...this.connections]) {
      c.client.destroy();
      c.upstream.destroy();
    }
    return count;
  }

  /** New connections are closed as soon as they are accepted (true), or proxied again (false). */
  refuse(on: boolean): void {
    this.refusing = on;
  }

  /**
   * Stops forwarding the door's bytes on every connection that carries a request; the sockets stay open. Idle
   * connections are left alone: undici opens a spare one after a connection closes, and a later request may use it.
   */
  stallAll(): number {
    let stalled = 0;
    for (const c of this.connections) {
      if (!c.active) continue;
      c.stalled = true;
      c.upstream.pause();
      stalled += 1;
    }
    return stalled;
  }

  async close(): Promise<void> {
    this.cutAll();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A pid that no process has: a child that has already exited. */
export async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

/**
 * Whether a process with this pid exists, a zombie included, as `mur` judges a registry entry (docs/cli.md, "Stale
 * registry entries": stale when `kill(pid, 0)` fails other than EPERM). Unlike support/tasks.ts's isAlive, a process
 * killed but not yet reaped still counts, so a test waiting for it to be gone waits as long as `mur ps` would.
 */
export function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A live process the tests own (a sleeping node), to stand for another runtime's process. */
export function sleeper(): ChildProcess {
  return spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How many murmur.WatchSession streams the door has opened so far (its logs/door.log). */
export function watchStreamsOpened(recordsDir: string): number {
  let text = '';
  try {
    text = readFileSync(path.join(recordsDir, 'logs', 'door.log'), 'utf8');
  } catch {
    return 0;
  }
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { message?: string; method?: string })
    .filter((entry) => entry.message === 'stream opened' && entry.method === 'murmur.WatchSession').length;
}

/** Polls until `probe` returns a value. */
export async function until<T>(probe: () => T | undefined | Promise<T | undefined>, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** The ids of the events a fresh murmur.WatchSession replays (the door's whole buffer), read raw for `ms`. */
export async function replayedIds(url: string, headers: Record<string, string> = {}, ms = 300): Promise<string[]> {
  const controller = new AbortController();
  const response = await fetch(`${url}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'A2A-Version': '1.0', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'murmur.WatchSession', params: {} }),
    signal: controller.signal,
  });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const timer = setTimeout(() => controller.abort(), ms);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    // aborted: the replay has been read
  } finally {
    clearTimeout(timer);
  }
  return [...text.matchAll(/^id: (\d+)$/gm)].map((m) => m[1]);
}

/** A script whose `bg` task runs `sleep 30` in bash (moved to the background under shell_grace_secs) and then naps. */
export const BACKGROUND_SCRIPT = `
rules:
  - match: '^bg'
    turns:
      - tools:
          - tool: bash
            input: { command: "sleep 30" }
      - sleep_ms: 30000
        answer: done
  - match: '^nap'
    turns:
      - sleep_ms: 30000
        answer: rested
  - match: '^say (.*)$'
    turns:
      - answer: "{{match.1}}"
default:
  turns:
    - answer: no rule
`;

/** The work id once the task's bash command has moved to the background (its tool_call trace record). */
export function backgroundWorkId(recordsDir: string, taskId: string): string | undefined {
  const lines = completeLines(readFileSync(path.join(recordsDir, 'trace.jsonl'), 'utf8'));
  for (const line of lines) {
    const record = JSON.parse(line) as { type?: string; task_id?: string; work_id?: string };
    if (record.type === 'tool_call' && record.task_id === taskId && typeof record.work_id === 'string') return record.work_id;
  }
  return undefined;
}
