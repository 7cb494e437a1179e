/** Starts raw-fastify-server.js as a child process and resolves with its address once it listens. */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { stopChild, track } from './children.js';

const SERVER = fileURLToPath(new URL('./raw-fastify-server.js', import.meta.url));

export interface RawEndpoint {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

export async function startRawEndpoint(result: unknown): Promise<RawEndpoint> {
  const child = track(spawn(process.execPath, [SERVER], { env: { ...process.env, BENCH_RAW_RESULT: JSON.stringify(result) }, stdio: ['ignore', 'pipe', 'pipe'] }));
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const line = await new Promise<string>((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`the raw Fastify server exited (${code}) before listening: ${stderr.trim()}`));
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
