/**
 * Artifacts for the tests (docs/artifacts.md): artifact folders, WebAssembly components built from WAT with the same
 * toolchain the build uses (jco-transpile's wasm-tools), stores written as mur publish writes them, pins, the `mur`
 * commands, and a loopback server that answers as GitHub's REST API does for a scope's source.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { componentEmbed, componentNew, parse } from '@bytecodealliance/jco-transpile/wasm-tools';
import { stringify } from 'yaml';
import { packFolder } from '../../src/artifacts/archive-pack.js';
import { parseArtifactManifest } from '../../src/artifacts/artifact-manifest.js';
import { storeRecordText } from '../../src/artifacts/store-record.js';
import { writeToStore } from '../../src/artifacts/store-folder.js';
import { MUR_CLI, tempDir } from './door-process.js';

const WIT_FILE = fileURLToPath(new URL('../../../wit/murmur.wit', import.meta.url));
export const GREET_WAT = fileURLToPath(new URL('../../../../../examples/artifacts/artifacts/greet/greet.wat', import.meta.url));

/** The runtime's WIT package, at another version when asked (a component built for another level). */
function witAt(version = '0.1.0'): string {
  return readFileSync(WIT_FILE, 'utf8').replaceAll('@0.1.0', `@${version}`);
}

/** A component of `wat` (a core module whose exports and imports use `version`), against the WIT at that version. */
export async function componentOf(wat: string, version = '0.1.0'): Promise<Uint8Array> {
  return componentNew(await componentEmbed({ binary: await parse(wat), witSource: witAt(version), world: 'tool' }));
}

/** A bump allocator and a memory, as every fixture's core module needs them. */
const REALLOC = `(memory (export "memory") 1)
  (global $heap (mut i32) (i32.const 4096))
  (func (export "cabi_realloc") (param i32 i32 i32 i32) (result i32)
    (local $at i32) (local.set $at (global.get $heap)) (global.set $heap (i32.add (global.get $heap) (local.get 3))) (local.get $at))`;

/** A tool that answers ok(`text`) (or err, with `fail`). */
export const answerWat = (text: string, { fail = false, version = '0.1.0' } = {}) => `(module ${REALLOC}
  (data (i32.const 1024) "${text}")
  (func (export "murmur:tool/run@${version}#run") (param i32 i32) (result i32)
    (i32.store8 (i32.const 256) (i32.const ${fail ? 1 : 0}))
    (i32.store (i32.const 260) (i32.const 1024))
    (i32.store (i32.const 264) (i32.const ${Buffer.byteLength(text)}))
    (i32.const 256)))`;

/** A tool that never returns. */
export const LOOP_WAT = `(module ${REALLOC}
  (func (export "murmur:tool/run@0.1.0#run") (param i32 i32) (result i32) (loop $forever (br $forever)) (i32.const 0)))`;

/** A tool that allocates without end: it grows its memory until a grow fails, then traps. */
export const GROW_WAT = `(module ${REALLOC}
  (func (export "murmur:tool/run@0.1.0#run") (param i32 i32) (result i32)
    (loop $more (br_if $more (i32.ne (memory.grow (i32.const 16)) (i32.const -1))))
    unreachable))`;

/** A script rule: the task `pull <value>` calls pull-artifact with the value and answers what the model read. */
export const PULL_RULE = `  - match: '^pull (\\S+)$'
    turns:
      - tools:
          - tool: pull-artifact
            input: { artifact: "{{match.1}}" }
        answer: "{{tool.content}}"
`;

/** A tool that streams 64 KiB chunks through murmur:text/chunks without end. */
export const CHATTY_WAT = `(module
  (import "murmur:text/chunks@0.1.0" "text" (func $text (param i32 i32)))
  ${REALLOC.replace('(memory (export "memory") 1)', '(memory (export "memory") 2)')}
  (func (export "murmur:tool/run@0.1.0#run") (param i32 i32) (result i32)
    (loop $more (call $text (i32.const 0) (i32.const 65536)) (br $more)) (i32.const 0)))`;

export type ArtifactFiles = Record<string, string | Uint8Array | { text: string; mode: number }>;

/** Writes an artifact folder: its murmur.yaml from `manifest`, and its files. */
export function artifactFolder(manifest: Record<string, unknown>, files: ArtifactFiles = {}): string {
  const dir = tempDir('artifact');
  writeFileSync(path.join(dir, 'murmur.yaml'), stringify(manifest));
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(dir, name);
    mkdirSync(path.dirname(file), { recursive: true });
    if (typeof content === 'string' || content instanceof Uint8Array) writeFileSync(file, content);
    else {
      writeFileSync(file, content.text);
      chmodSync(file, content.mode);
    }
  }
  return dir;
}

/** A native tool that runs `script` (a /bin/sh script reading the call's input on stdin). */
export const nativeTool = (name: string, script: string, extra: Record<string, unknown> = {}) =>
  artifactFolder(
    { name, version: '1.0.0', runtime: 'tool', implementation: 'native', description: `the ${name} tool`, entry: 'run', ...extra },
    { run: { text: `#!/bin/sh\n${script}\n`, mode: 0o755 } },
  );

/** A skill whose text is `text`. */
export const skill = (name: string, text: string, extra: Record<string, unknown> = {}) =>
  artifactFolder({ name, version: '1.0.0', runtime: 'skill', description: `the ${name} skill`, entry: 'SKILL.md', ...extra }, { 'SKILL.md': text });

/** A WASM tool whose component is `component`. */
export const wasmTool = (name: string, component: Uint8Array, extra: Record<string, unknown> = {}) =>
  artifactFolder(
    { name, version: '1.0.0', runtime: 'tool', implementation: 'wasm', description: `the ${name} tool`, entry: 'tool.wasm', ...extra },
    { 'tool.wasm': component },
  );

/** Writes a folder's artifact into the store at `root` as mur publish does; `wit` is what its record says of a WASM tool's level. */
export async function publishInto(root: string, folder: string, wit: string | null = null): Promise<{ digest: string; archive: string }> {
  const manifest = parseArtifactManifest(readFileSync(path.join(folder, 'murmur.yaml'), 'utf8'), folder);
  const { archive, digest } = await packFolder(folder);
  const level = wit ?? (manifest.implementation === 'wasm' ? '0.1' : null);
  return { digest, archive: await writeToStore(root, manifest.name, manifest.version, archive, storeRecordText(manifest, digest, level)) };
}

export const projectStore = (capsuleDir: string) => path.join(capsuleDir, '.murmur', 'store');
export const globalStore = (home: string) => path.join(home, 'store');

/** A murmur.lock pinning `pins` (full name → version and digest), with the scopes given. */
export function writeLock(
  capsuleDir: string,
  pins: Record<string, { version: string; digest: string; runtime?: string; origin?: string; fetched_from?: string; owner?: string }>,
  scopes: Record<string, { source?: string; owner?: string }> = {},
): void {
  const artifacts = Object.fromEntries(
    Object.entries(pins).map(([name, p]) => [
      name,
      {
        version: p.version,
        digest: p.digest,
        runtime: p.runtime ?? 'tool',
        origin: p.origin ?? 'operator',
        fetched_from: p.fetched_from ?? 'project store',
        ...(p.owner ? { owner: p.owner } : {}),
      },
    ]),
  );
  writeFileSync(path.join(capsuleDir, 'murmur.lock'), stringify({ lock_version: 1, scopes, artifacts }));
}

export function readLockFile(capsuleDir: string): string {
  try {
    return readFileSync(path.join(capsuleDir, 'murmur.lock'), 'utf8');
  } catch {
    return '';
  }
}

/** `mur <args>` as a user runs it, its exit code and both streams. */
export function mur(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MUR_CLI, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A loopback server answering as GitHub's REST API does for one repository laid out as a store. */
export interface FakeGithub {
  url: string;
  /** The owner id `GET /repos/<owner>/<repo>` answers; change it to play a repository that changed hands. */
  ownerId: number;
  /** Answer every request with this status instead (500: a source that cannot be read). */
  failWith: number | null;
  requests: string[];
  close(): Promise<void>;
}

/** Serves the store at `root` as the repository `owner/repo`. */
export async function fakeGithub(root: string, owner: string, repo: string, ownerId: number): Promise<FakeGithub> {
  const state: FakeGithub = { url: '', ownerId, failWith: null, requests: [], close: async () => undefined };
  const server: Server = createServer((req, res) => {
    state.requests.push(`${req.method} ${req.url}`);
    if (state.failWith !== null) {
      res.writeHead(state.failWith).end();
      return;
    }
    const prefix = `/repos/${owner}/${repo}`;
    const url = req.url ?? '';
    if (url === prefix) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ name: repo, owner: { login: owner, id: state.ownerId } }));
      return;
    }
    if (!url.startsWith(`${prefix}/contents/`)) {
      res.writeHead(404).end('{}');
      return;
    }
    const rel = decodeURIComponent(url.slice(`${prefix}/contents/`.length));
    const file = path.join(root, rel);
    if (!file.startsWith(`${root}/`)) {
      res.writeHead(404).end('{}');
      return;
    }
    try {
      const entries = readdirEntries(file);
      if (entries !== null) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(entries));
        return;
      }
      const bytes = readFileSync(file);
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(bytes);
    } catch {
      res.writeHead(404).end('{}');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () => new Promise((resolve) => server.close(() => resolve()));
  return state;
}

function readdirEntries(dir: string): { name: string; type: string }[] | null {
  try {
    if (!statSync(dir).isDirectory()) return null;
    return readdirSync(dir).map((name: string) => ({ name, type: statSync(path.join(dir, name)).isDirectory() ? 'dir' : 'file' }));
  } catch {
    return null;
  }
}
