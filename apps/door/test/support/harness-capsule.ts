/**
 * Harness capsules for the tests (docs/harness.md): the real Claude Code and Codex executables, installed on demand by
 * apps/door/scripts/ensure-harness.mjs (as root in CI), or a test skipped with the exact command to run; a capsule's
 * manifest; and whether anything a session started still runs.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ENSURE = fileURLToPath(new URL('../../../scripts/ensure-harness.mjs', import.meta.url));

/** Why the harness cannot be had here (the message names the exact install command), or null once it is installed. */
export function harnessMissing(name: 'claude-code' | 'codex'): string | null {
  const run = spawnSync(process.execPath, [ENSURE, name], { encoding: 'utf8', timeout: 300_000 });
  if (run.status === 0) return null;
  return `${name} is not installed and could not be installed here (${run.stderr.trim().split('\n').at(-1) ?? 'no reason given'}); install it with: node apps/door/scripts/ensure-harness.mjs ${name}`;
}

/** A harness capsule's murmur.yaml: `harness` is inference.harness's YAML body (indented by the caller's keys), `extra` more top-level YAML. */
export function harnessManifest(opts: {
  name?: string;
  harness: Record<string, string | number | boolean>;
  maxTurns?: number;
  acceptance?: 'single' | 'queue';
  /** More lifecycle keys, each `key: value`. */
  lifecycle?: string[];
  /** More inference keys, each `key: value`. */
  inference?: string[];
  extra?: string;
}): string {
  return [
    `name: ${opts.name ?? 'harness-capsule'}`,
    'version: 0.1.0',
    'lifecycle:',
    `  task_acceptance: ${opts.acceptance ?? 'queue'}`,
    ...(opts.lifecycle ?? []).map((line) => `  ${line}`),
    'inference:',
    '  transport: process',
    `  max_turns: ${opts.maxTurns ?? 10}`,
    ...(opts.inference ?? []).map((line) => `  ${line}`),
    '  harness:',
    ...Object.entries(opts.harness).map(([key, value]) => `    ${key}: ${typeof value === 'string' ? JSON.stringify(value) : value}`),
    opts.extra ?? '',
  ].join('\n');
}

/** The processes that carry a session's mark (every command's, the harness's included): none once its runs have ended. */
export function markedProcesses(sessionId: string): number[] {
  const mark = `MURMUR_COMMAND_SESSION=${sessionId}`;
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2)[0] === 'Z') continue;
      if (readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0').includes(mark)) found.push(Number(entry));
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

/** An unsigned JWT naming an LLM gateway as its audience: Claude Code reports a gateway's rate-limit windows. */
export function gatewayToken(): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'none', typ: 'JWT' })}.${part({ aud: 'claude-gateway', sub: 'murmur-test' })}.sig`;
}
