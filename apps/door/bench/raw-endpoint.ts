/** Starts a reference server (raw Fastify, bare node:http, the official SDK's server) as a child process; resolves once it listens. */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { stopChild, track } from './children.js';

const RAW_SERVER = fileURLToPath(new URL('./raw-fastify-server.js', import.meta.url));
const NODE_HTTP_SERVER = fileURLToPath(new URL('./raw-node-http-server.js', import.meta.url));
const SDK_SERVER = fileURLToPath(new URL('./sdk-server.js', import.meta.url));

export interface RawEndpoint {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** raw-fastify-server.js answering `result` to every POST. */
export function startRawEndpoint(result: unknown): Promise<RawEndpoint> {
  return startServer(RAW_SERVER, { BENCH_RAW_RESULT: JSON.stringify(result) }, 'the raw Fastify server');
}

/** raw-node-http-server.js: bare node:http answering `result` to every POST, the floor of any server on Node. */
export function startNodeHttpEndpoint(result: unknown): Promise<RawEndpoint> {
  return startServer(NODE_HTTP_SERVER, { BENCH_RAW_RESULT: JSON.stringify(result) }, 'the node:http server');
}

/** sdk-server.js: @a2a-js/sdk's DefaultRequestHandler + JsonRpcTransportHandler over its in-memory store. */
export function startSdkServer(nodeFlags: string[] = []): Promise<RawEndpoint> {
  return startServer(SDK_SERVER, {}, 'the @a2a-js/sdk server', nodeFlags);
}

async function startServer(script: string, env: Record<string, string>, name: string, nodeFlags: string[] = []): Promise<RawEndpoint> {
  const child = track(spawn(process.execPath, [...nodeFlags, script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] }));
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const line = await new Promise<string>((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`${name} exited (${code}) before listening: ${stderr.trim()}`));
    child.once('exit', onExit);
    child.once('error', reject);
    createInterface({ input: child.stdout! }).once('line', (first) => {
      child.off('exit', onExit);
      resolve(first);
    });
  });
  const { url, pid } = JSON.parse(line) as { url: string; pid: number };
  return { url, pid, stop: () => stopChild(child) };
}
