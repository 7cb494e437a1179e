/**
 * Test capsules: a temporary folder with murmur.yaml and script.yaml (docs/manifest.md, docs/script-driver.md),
 * started with `murmur.startDoor(capsule.dir)`. YAML is a superset of JSON, so both files are written as JSON.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MurmurClient } from '@murmur/client';
import type { Door } from './fixtures.js';

export interface ScriptTurn {
  thinking?: string[];
  text?: string[];
  repeat?: number;
  pace_ms?: number;
  sleep_ms?: number;
  tools?: { tool: string; input?: Record<string, unknown>; id?: string }[];
  answer?: string;
  ask?: string;
  fail?: string;
  /** Token usage the call reports, as a provider would (docs/script-driver.md). */
  usage?: { input?: number; output?: number; cached?: number };
}

interface ScriptRule {
  match: string;
  flags?: string;
  turns: ScriptTurn[];
}

export interface CapsuleSpec {
  name: string;
  version?: string;
  /** `lifecycle` of murmur.yaml. @default { task_acceptance: 'queue' } */
  lifecycle?: Record<string, unknown>;
  maxTurns?: number;
  /** More of `inference` in murmur.yaml (max_session_tokens…), beside the script driver and max_turns. */
  inference?: Record<string, unknown>;
  /** Shell binaries the agent may run. @default ['bash'] */
  shell?: string[];
  /** `network` of murmur.yaml (authentication…). */
  network?: Record<string, unknown>;
  /** `hooks` of murmur.yaml (docs/agent-loop.md, "Hooks"). */
  hooks?: Record<string, unknown>;
  rules: ScriptRule[];
  /** The default rule's turns. @default one turn answering "no rule for {{task.text}}" */
  defaultTurns?: ScriptTurn[];
}

export interface Capsule {
  /** The capsule folder (absolute): pass it to startDoor. */
  dir: string;
  remove(): void;
}

/** Writes a capsule folder under the OS temp folder. */
export function makeCapsule(spec: CapsuleSpec): Capsule {
  const dir = mkdtempSync(path.join(os.tmpdir(), `murmur-e2e-${spec.name}-`));
  const manifest: Record<string, unknown> = {
    name: spec.name,
    version: spec.version ?? '0.1.0',
    lifecycle: spec.lifecycle ?? { task_acceptance: 'queue' },
    inference: { driver: 'script', script: 'script.yaml', max_turns: spec.maxTurns ?? 8, ...spec.inference },
    capabilities: { shell: { allow: spec.shell ?? ['bash'] } },
  };
  if (spec.network) manifest.network = spec.network;
  if (spec.hooks) manifest.hooks = spec.hooks;
  const script = {
    rules: spec.rules,
    default: { turns: spec.defaultTurns ?? [{ answer: 'no rule for {{task.text}}' }] },
  };
  writeFileSync(path.join(dir, 'murmur.yaml'), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(path.join(dir, 'script.yaml'), `${JSON.stringify(script, null, 2)}\n`);
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

interface MintedToken {
  credential: string;
  scopes: string[] | 'all';
  token: string;
}

/** The tokens a running authenticated door minted (`<recordsDir>/tokens.json`), operator first. */
function tokensOf(door: Door): MintedToken[] {
  return (JSON.parse(readFileSync(path.join(door.recordsDir, 'tokens.json'), 'utf8')) as { tokens: MintedToken[] }).tokens;
}

export function tokenOf(door: Door, credential: string): string {
  const found = tokensOf(door).find((t) => t.credential === credential);
  if (!found) throw new Error(`no ${credential} token in ${door.recordsDir}/tokens.json`);
  return found.token;
}

/** A client SDK talking to the door directly (from the test process, not through the console). */
export function clientOf(door: Door, token?: string): MurmurClient {
  return new MurmurClient(door.url, token === undefined ? {} : { token });
}

/** A text unique to this run, so tests never match each other's tasks. */
export function unique(prefix: string): string {
  return `${prefix} ${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
}
