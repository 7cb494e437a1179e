/**
 * Helpers for the authentication tests (seed 000, "Security", "Tokens", "Who sees a task" and "What the door
 * answers"): the tokens a door minted, requests carrying them, raw HTTP with repeated header lines, the refusal
 * shapes of steps 2, 3 and 11, a small SSE reader, and the strict A2A descriptor.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { type DoorProcess, MUR_CLI } from './door-process.js';
import { openRpc } from './sse.js';
import { httpRequest, type RawAnswer } from './wire.js';

export const DOOR_EXTENSION_URI = 'https://docs.murmur.nexus/reference/agent-card/#murmur-door-v1';
export const CAPSULE_EXTENSION_URI = 'https://docs.murmur.nexus/reference/agent-card/#murmur-capsule-v1';
export const STREAM_EXTENSION_URI = 'https://docs.murmur.nexus/reference/streaming-protocol/#murmur-stream-v1';
export const CARD_PATH = '/.well-known/agent-card.json';

/** The eight door methods a scope names (seed 000, "Tokens"), in the door extension's order. */
export const SCOPED_METHODS = [
  'SendMessage',
  'SendStreamingMessage',
  'murmur.WatchSession',
  'GetTask',
  'ListTasks',
  'CancelTask',
  'SubscribeToTask',
  'murmur.StopSession',
] as const;

export const PUSH_CONFIG_METHODS = [
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
] as const;

export interface MintedToken {
  credential: string;
  scopes: string[] | 'all';
  token: string;
}

/** <recordsDir>/tokens.json, as the door wrote it. */
export function readTokensFile(recordsDir: string): MintedToken[] {
  return (JSON.parse(readFileSync(path.join(recordsDir, 'tokens.json'), 'utf8')) as { tokens: MintedToken[] }).tokens;
}

/** The door's tokens by credential name ("operator" included). */
export function tokensOf(door: { recordsDir: string }): Record<string, string> {
  return Object.fromEntries(readTokensFile(door.recordsDir).map((t) => [t.credential, t.token]));
}

export const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

/** A network.authentication block for manifestYaml's `extra`: credential name → scopes. */
export function authBlock(credentials: Record<string, readonly string[]>): string {
  const lines = ['network:', '  authentication:', '    scheme: bearer'];
  const names = Object.keys(credentials);
  if (names.length > 0) lines.push('    credentials:');
  for (const name of names) lines.push(`      ${name}:`, `        scopes: [${credentials[name].map((s) => JSON.stringify(s)).join(', ')}]`);
  return lines.join('\n');
}

export type { RawAnswer, RawRequest } from './wire.js';

let rpcIds = 1;

/** A JSON-RPC request body. */
export function envelope(method: string, params?: unknown, id: unknown = rpcIds++): string {
  const body: Record<string, unknown> = { jsonrpc: '2.0', id, method };
  if (params !== undefined) body.params = params;
  return JSON.stringify(body);
}

export const RPC_HEADERS = { 'content-type': 'application/json', 'a2a-version': '1.0' } as const;

/** One HTTP/1.1 request on a fresh connection with exactly the given header lines (plus Host and Content-Length). */
export const raw = httpRequest;

/**
 * One request written byte for byte on a socket: `lines` are the request line and header lines (Host, Content-Length
 * and Connection: close are added). Answers the status, the header block and the body text.
 */
export function rawSocket(url: string, lines: string[], body = ''): Promise<{ status: number; head: string; text: string }> {
  const target = new URL(url);
  const head = [...lines, `Host: ${target.host}`, `Content-Length: ${Buffer.byteLength(body)}`, 'Connection: close'].join('\r\n');
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(target.port), target.hostname, () => socket.write(`${head}\r\n\r\n${body}`));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      resolve({ status, head: text.slice(0, split), text: split >= 0 ? text.slice(split + 4) : '' });
    });
  });
}

/** One JSON-RPC POST / with the standard headers, and `headers` added (an array value is sent as repeated lines). */
export function call(url: string, method: string, params: unknown, headers: Record<string, string | string[]> = {}): Promise<RawAnswer> {
  return raw(url, { method: 'POST', path: '/', headers: { ...RPC_HEADERS, ...headers }, body: envelope(method, params) });
}

/** A JSON-RPC call as `token`'s credential. */
export function as(url: string, token: string, method: string, params?: unknown, headers: Record<string, string | string[]> = {}): Promise<RawAnswer> {
  return call(url, method, params, { ...bearer(token), ...headers });
}

let messages = 1;
export function message(text: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { messageId: `msg-auth-${process.pid}-${messages++}`, role: 'ROLE_USER', parts: [{ text }], ...extra };
}

/** SendMessage as `token`; `returnImmediately` answers without waiting for the task to settle. */
export function sendAs(url: string, token: string, text: string, extra: Record<string, unknown> = {}, returnImmediately = false): Promise<RawAnswer> {
  return as(url, token, 'SendMessage', { message: message(text, extra), ...(returnImmediately ? { configuration: { returnImmediately: true } } : {}) });
}

/** Starts a task as `token` and returns its id. */
export async function startTask(url: string, token: string, text: string, returnImmediately = false): Promise<string> {
  const answer = await sendAs(url, token, text, {}, returnImmediately);
  const id = answer.json?.result?.task?.id;
  if (typeof id !== 'string') throw new Error(`SendMessage did not answer a task: ${answer.status} ${answer.text}`);
  return id;
}

async function waitUntil<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Polls GetTask as `token` until the task is in `state`. */
export function waitForStateAs(url: string, token: string, taskId: string, state: string, timeoutMs?: number) {
  return waitUntil(
    async () => {
      const answer = await as(url, token, 'GetTask', { id: taskId });
      return answer.json?.result?.status?.state === state ? answer.json.result : undefined;
    },
    `${taskId} to reach ${state}`,
    timeoutMs,
  );
}

/** A task id of the door's shape that no session ever held. */
export function neverHeldId(seed = 0): string {
  return `tsk_${(0xfeed0000 + seed).toString(16).padStart(32, '0')}`;
}

/** The expected www-authenticate of each refusal (seed 000, the 401/403 table). */
const challenge = {
  unauthenticated: (realm: string) => `Bearer realm="${realm}"`,
  invalidToken: (realm: string) => `Bearer realm="${realm}", error="invalid_token"`,
  insufficientScope: (realm: string, scope: string) => `Bearer realm="${realm}", error="insufficient_scope", scope="${scope}"`,
};

/** A refusal at step 2, 3, 4 or 11: an HTTP status and a JSON body {error, message}, never a JSON-RPC envelope. */
export function assertRefusalBody(answer: RawAnswer, error: string, what: string): void {
  assert.match(String(answer.headers['content-type']), /^application\/json/, `${what}: content-type`);
  assert.ok(answer.json && typeof answer.json === 'object' && !Array.isArray(answer.json), `${what}: a JSON object body: ${answer.text}`);
  assert.deepEqual(Object.keys(answer.json).sort(), ['error', 'message'], `${what}: the body is {error, message}: ${answer.text}`);
  assert.equal(answer.json.error, error, `${what}: body error`);
  assert.equal(typeof answer.json.message, 'string', `${what}: message is a string`);
  assert.ok(answer.json.message.length > 0, `${what}: message is a sentence`);
  assert.equal(answer.json.jsonrpc, undefined, `${what}: never a JSON-RPC envelope`);
  assert.equal(answer.headers['a2a-extensions'], undefined, `${what}: a refusal names no extension`);
}

export function assertUnauthenticated(answer: RawAnswer, realm: string, what: string): void {
  assert.equal(answer.status, 401, `${what}: status: ${answer.text}`);
  assert.equal(answer.headers['www-authenticate'], challenge.unauthenticated(realm), `${what}: www-authenticate`);
  assertRefusalBody(answer, 'unauthenticated', what);
}

export function assertInvalidToken(answer: RawAnswer, realm: string, what: string): void {
  assert.equal(answer.status, 401, `${what}: status: ${answer.text}`);
  assert.equal(answer.headers['www-authenticate'], challenge.invalidToken(realm), `${what}: www-authenticate`);
  assertRefusalBody(answer, 'invalid_token', what);
}

export function assertInsufficientScope(answer: RawAnswer, realm: string, credential: string, scope: string, what: string): void {
  assert.equal(answer.status, 403, `${what}: status: ${answer.text}`);
  assert.equal(answer.headers['www-authenticate'], challenge.insufficientScope(realm, scope), `${what}: www-authenticate`);
  assertRefusalBody(answer, 'insufficient_scope', what);
  assert.equal(answer.json.message, `credential '${credential}' does not reach ${scope}`, `${what}: message`);
}

/** A JSON-RPC error answer (HTTP 200) with the given code; returns the error object. */
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON shapes
export function assertRpcError(answer: RawAnswer, code: number, what: string): any {
  assert.equal(answer.status, 200, `${what}: HTTP 200 for a JSON-RPC answer: ${answer.text}`);
  assert.equal(answer.json?.jsonrpc, '2.0', `${what}: a JSON-RPC envelope: ${answer.text}`);
  assert.equal(answer.json?.error?.code, code, `${what}: error code: ${answer.text}`);
  return answer.json.error;
}

/** A JSON-RPC result answer (HTTP 200); returns the result. */
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON shapes
export function assertRpcResult(answer: RawAnswer, what: string): any {
  assert.equal(answer.status, 200, `${what}: status: ${answer.text}`);
  assert.equal(answer.json?.error, undefined, `${what}: no error: ${answer.text}`);
  assert.ok(answer.json && 'result' in answer.json, `${what}: a result: ${answer.text}`);
  return answer.json.result;
}

/** A stream opened with a token, seen as the parsed data of its events (read by the shared SSE reader in sse.ts). */
export interface SseStream {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON shapes
  readonly events: any[];
  ended: Promise<void>;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON shapes
  until(check: (events: any[]) => boolean, what: string, timeoutMs?: number): Promise<void>;
  abort(): void;
}

/** POSTs a JSON-RPC call as `token`; a text/event-stream answer is read as SSE, anything else as its JSON text. */
export async function openAs(
  url: string,
  token: string,
  method: string,
  params: unknown,
  headers: Record<string, string> = {},
): Promise<{ kind: 'stream'; stream: SseStream } | { kind: 'json'; status: number; text: string; json: unknown }> {
  const answer = await openRpc(url, method, params, { headers: { ...bearer(token), ...headers } });
  if (answer.kind === 'json') return { kind: 'json', status: answer.status, text: answer.text, json: answer.json };
  const reader = answer.stream;
  const data = () => reader.events.map((event) => event.data);
  return {
    kind: 'stream',
    stream: {
      status: answer.status,
      get events() {
        return data();
      },
      ended: reader.done,
      until: (check, what, timeoutMs) => reader.until(() => (check(data()) ? true : undefined), what, timeoutMs).then(() => undefined),
      abort: () => reader.abort(),
    },
  };
}

/** The task id an SSE event's StreamResponse belongs to. */
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON shapes
export function eventTaskId(event: any): string | undefined {
  const result = event?.result ?? {};
  return result.task?.id ?? result.statusUpdate?.taskId ?? result.artifactUpdate?.taskId;
}

/** Runs `mur ARGS` with MURMUR_HOME=home; resolves with the exit code and output. */
export function mur(args: string[], home: string, timeoutMs = 20_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MUR_CLI, ...args], { env: { ...process.env, MURMUR_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`mur ${args.join(' ')} did not exit within ${timeoutMs} ms: ${stderr}`));
    }, timeoutMs);
    // 'close', not 'exit': the output pipes are read to their end first.
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Collects what a door writes to stdout and stderr from now on (the announcement line is read by runDoor). */
export function captureOutput(door: DoorProcess): { stdout(): string; stderr(): string } {
  let stdout = '';
  door.child.stdout?.on('data', (c: Buffer) => {
    stdout += c.toString();
  });
  return { stdout: () => stdout, stderr: () => door.stderr() };
}

/** A seeded PRNG (mulberry32): the same seed plays the same cases. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
