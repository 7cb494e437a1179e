/**
 * What mur pack, publish, pull, list and remove share (docs/artifacts.md, "The operators' commands"): where the capsule
 * and the stores are, the WASM host that reads a component's WIT level, and one mapping of their failures to a line and
 * an exit code — 1 when a place could not be read or failed a check, 2 for an artifact, a name or a lock that is refused.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ArchiveRefusal } from '../artifacts/archive-bounds.js';
import { RoleMismatch } from '../artifacts/artifact-folder.js';
import { PlaceUnreadable } from '../artifacts/place.js';
import { ConfigError } from '../config/config-problem.js';
import { doorSettings } from '../config/settings.js';
import { PullRefusal } from '../tools/artifacts/pull-refusal.js';
import { WasmHost } from '../tools/wasm/wasm-host.js';
import { printErr } from './terminal-lines.js';

/** The bounds mur's own checks run a component's transpiling under: the manifest's defaults (capabilities.wasm). */
export const commandWasm = (): WasmHost => new WasmHost({ maxSecs: 30, maxMemoryMib: 64 });

export const capsuleDirOf = (option: string | undefined): string => path.resolve(option ?? '.');

export const murmurHome = (): string => doorSettings().home;

export const sourceApiUrl = (): string => doorSettings().sourceApiUrl;

/** A temporary folder of mur's own, removed once `work` is done. */
export async function inTemporaryFolder<T>(work: (folder: string) => Promise<T>): Promise<T> {
  const folder = await mkdtemp(path.join(os.tmpdir(), 'murmur-artifact-'));
  try {
    return await work(folder);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/** Runs a command, its known failures printed as one `mur: …` line and turned into its exit code. */
export async function artifactCommand(run: () => Promise<number>): Promise<number> {
  try {
    return await run();
  } catch (error) {
    const fail = (message: string, code: number) => {
      printErr(`mur: ${message}`);
      return code;
    };
    if (error instanceof PullRefusal) return fail(error.message, error.kind === 'not-fetched' ? 1 : 2);
    if (error instanceof PlaceUnreadable) return fail(error.message, 1);
    if (error instanceof ArchiveRefusal || error instanceof RoleMismatch) return fail(error.message, 2);
    if (error instanceof ConfigError) return fail(error.message, 2);
    throw error;
  }
}
