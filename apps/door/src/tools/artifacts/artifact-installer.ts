import { rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { ARTIFACT_CODE, ARTIFACT_REFUSAL, type JsonObject } from '@murmur/protocol';
import { artifactToolName } from '../../artifacts/artifact-manifest.js';
import { shortDigest } from '../../artifacts/content-digest.js';
import { InstallGrant } from '../../artifacts/install-grant.js';
import { type Lock, LockError, readLock, updateLock } from '../../artifacts/murmur-lock.js';
import { globalStoreOf, projectStoreOf, StoreFolder } from '../../artifacts/store-folder.js';
import { FULL_NAME, isReservedToolName, readArtifactRequest, toolNameOf } from '../../manifest/artifact-entries.js';
import type { TraceWriter } from '../../records/trace-writer.js';
import type { SessionContext } from '../../session/session-context.js';
import { type RuntimeToolAnswer, type ToolCallContext, ToolInputError } from '../tool-call.js';
import type { WasmHost } from '../wasm/wasm-host.js';
import { type Fetched, fetchArtifact } from './artifact-fetch.js';
import { listPattern } from './artifact-listing.js';
import type { InstalledArtifact, SessionArtifacts } from './installed-artifacts.js';
import { PullRefusal } from './pull-refusal.js';

export interface ArtifactInstallerDeps {
  session: SessionContext;
  artifacts: SessionArtifacts;
  wasm: WasmHost;
  trace: TraceWriter;
  /** Told of a removal, which holds for the calls after it at once (a pull joins the tool list at the next call). */
  removed(toolName: string): void;
}

/** Where a session's artifacts are unpacked: tools/<tool name>/ under its runtime folder (seed 004). */
export const toolsFolderOf = (runtimeDir: string): string => path.join(runtimeDir, 'tools');

/** An installed artifact from a fetch that passed its checks, its folder moved to `folder`. */
export function installedOf(fetched: Fetched, folder: string, origin: InstalledArtifact['origin']): InstalledArtifact {
  const { manifest } = fetched.artifact;
  return {
    fullName: manifest.name,
    version: manifest.version,
    digest: fetched.digest,
    runtime: manifest.runtime as 'tool' | 'skill',
    implementation: manifest.implementation ?? null,
    toolName: artifactToolName(manifest),
    description: manifest.description,
    inputSchema: manifest.input_schema as JsonObject,
    folder,
    entry: manifest.entry,
    origin,
    fetchedFrom: fetched.fetchedFrom,
  };
}

/** An artifact's fields as artifact_staged and artifact_pulled carry them. */
export const artifactRecord = (a: InstalledArtifact) => ({
  artifact: a.fullName,
  version: a.version,
  digest: a.digest,
  runtime: a.runtime,
  implementation: a.implementation,
  tool_name: a.toolName,
  fetched_from: a.fetchedFrom,
});

const refuse = (text: string): never => {
  throw new ToolInputError(text);
};

/**
 * pull-artifact and remove-artifact (seed 004; docs/artifacts.md): the checks in their order, then the lock, the
 * session's folder and the inventory. A refusal writes nothing: a pull is unpacked into a temporary folder of the
 * runtime's and checked there, and only then pinned, moved into tools/<tool name>/ and added.
 */
export class ArtifactInstaller {
  private readonly grant: InstallGrant;

  constructor(private readonly deps: ArtifactInstallerDeps) {
    this.grant = new InstallGrant(deps.session.manifest.capabilities.install ?? { tool: [], skill: [], from: ['stores'] });
  }

  get installGrant(): InstallGrant {
    return this.grant;
  }

  private stores(): StoreFolder[] {
    const { session } = this.deps;
    return [new StoreFolder('project store', projectStoreOf(session.capsuleDir)), new StoreFolder('global store', globalStoreOf(session.settings.home))];
  }

  async pull(value: string, ctx: ToolCallContext): Promise<RuntimeToolAnswer> {
    if (value.endsWith('*')) return this.list(value);
    const request =
      readArtifactRequest(value) ??
      refuse(
        `${ARTIFACT_REFUSAL.notGranted} '${value}' is not a full name: name an artifact <scope>/<name>, <scope>/<name>@<version>, or a pattern ending in *`,
      );
    const { fullName } = request;
    const tool = toolNameOf(fullName);
    if (isReservedToolName(tool))
      refuse(`${ARTIFACT_REFUSAL.notGranted} ${ARTIFACT_CODE.reservedName}: '${tool}' is the name of a runtime-provided tool; no artifact can take it`);
    if (!this.grant.namesAnyTier(fullName))
      refuse(`${ARTIFACT_REFUSAL.notGranted} ${fullName} is outside the grant: ${this.grant.quote('tool')} and ${this.grant.quote('skill')} name it nowhere`);
    const { session, artifacts } = this.deps;
    const lock = await this.lock(fullName);
    const workRoot = toolsFolderOf(session.runtimeDir);
    let fetched: Fetched;
    try {
      fetched = await fetchArtifact(
        {
          capsuleDir: session.capsuleDir,
          murmurHome: session.settings.home,
          sourceApiUrl: session.settings.sourceApiUrl,
          wasm: this.deps.wasm,
          workRoot,
          signal: ctx.signal,
        },
        lock,
        fullName,
        request.version,
        { kind: 'agent', grant: this.grant },
      );
    } catch (error) {
      if (error instanceof PullRefusal) refuse(error.message);
      throw error;
    }
    const temporary = fetched.artifact.folder;
    try {
      const installed = artifacts.byFullName(fullName);
      const holder = artifacts.holding(tool);
      if (holder !== undefined && holder.fullName !== fullName)
        refuse(`${ARTIFACT_REFUSAL.notGranted} the tool name '${tool}' is held by ${holder.fullName} in this session`);
      if (installed !== undefined && installed.digest !== fetched.digest) {
        refuse(PullRefusal.conflict(fullName, `this session holds ${installed.version}, and this pull is ${fetched.artifact.manifest.version}`).message);
      }
      await this.pin(fetched);
      if (installed === undefined) {
        const folder = path.join(workRoot, tool);
        await rm(folder, { recursive: true, force: true });
        await rename(temporary, folder);
        const artifact = installedOf(fetched, folder, 'pulled');
        artifacts.add(artifact);
        this.deps.trace.write('artifact_pulled', { task_id: ctx.taskId, tool_call_id: ctx.toolCallId ?? '', ...artifactRecord(artifact) });
      }
    } finally {
      await rm(temporary, { recursive: true, force: true });
    }
    const { manifest } = fetched.artifact;
    // Seed 004's data, its keys in the order of its example (by name), then the runtime's note after the fence.
    const data = {
      artifact: fullName,
      fetched_from: fetched.fetchedFrom,
      ...(fetched.notes.length === 0 ? {} : { notes: fetched.notes }),
      runtime: manifest.runtime,
      tool_name: tool,
      version: manifest.version,
    };
    return { data: JSON.stringify(data), note: `${tool} is in your tool list from your next turn.` };
  }

  /** The lock as it is now; one that cannot be read refuses the pull as a conflict with it. */
  private async lock(fullName: string): Promise<Lock> {
    try {
      return await readLock(this.deps.session.capsuleDir);
    } catch (error) {
      if (error instanceof LockError) refuse(PullRefusal.conflict(fullName, error.message.replaceAll('\n', ' ')).message);
      throw error;
    }
  }

  /** Pins the pull (origin: agent), under the lock's hold: a pin another session made meanwhile is checked again. */
  private async pin(fetched: Fetched): Promise<void> {
    const { manifest } = fetched.artifact;
    try {
      await updateLock(this.deps.session.capsuleDir, (lock) => {
        const pin = lock.artifacts[manifest.name];
        if (pin !== undefined && (pin.version !== manifest.version || pin.digest !== fetched.digest)) {
          throw PullRefusal.conflict(
            manifest.name,
            `murmur.lock pins ${pin.version} (${shortDigest(pin.digest)}), and this pull is ${manifest.version} (${shortDigest(fetched.digest)})`,
          );
        }
        const entry = {
          version: manifest.version,
          digest: fetched.digest,
          runtime: manifest.runtime,
          origin: pin?.origin ?? ('agent' as const),
          fetched_from: pin?.fetched_from ?? fetched.fetchedFrom,
          ...(fetched.owner === null ? {} : { owner: fetched.owner }),
        };
        return { lock: { ...lock, artifacts: { ...lock.artifacts, [manifest.name]: entry } }, result: undefined };
      });
    } catch (error) {
      if (error instanceof PullRefusal) refuse(error.message);
      if (error instanceof LockError) refuse(PullRefusal.conflict(manifest.name, error.message.replaceAll('\n', ' ')).message);
      throw error;
    }
  }

  private async list(pattern: string): Promise<RuntimeToolAnswer> {
    if (!/^[a-z0-9/_-]*\*$/.test(pattern) || (pattern.match(/\//g) ?? []).length > 1) {
      refuse(`${ARTIFACT_REFUSAL.notGranted} '${pattern}' is not a pattern: a pattern is the start of a full name <scope>/<name>, ending in *`);
    }
    if (!this.grant.reaches(pattern))
      refuse(`${ARTIFACT_REFUSAL.notGranted} ${pattern} reaches no name ${this.grant.quote('tool')} or ${this.grant.quote('skill')} grants`);
    return { data: JSON.stringify(await listPattern(pattern, this.stores(), this.grant)) };
  }

  async remove(value: string): Promise<RuntimeToolAnswer> {
    const { artifacts, session } = this.deps;
    const lock = await readLock(session.capsuleDir).catch((error: unknown) => (error instanceof LockError ? null : Promise.reject(error)));
    const installed = artifacts.byFullName(value) ?? artifacts.holding(value);
    const pinned =
      lock === null ? undefined : Object.keys(lock.artifacts).find((name) => name === value || (!FULL_NAME.test(value) && toolNameOf(name) === value));
    const fullName = installed?.fullName ?? pinned;
    if (fullName === undefined) return { data: JSON.stringify({ artifact: value, removed: false }) };
    const pin = lock?.artifacts[fullName];
    const declared = session.manifest.artifacts.some((entry) => entry === fullName || entry.startsWith(`${fullName}@`));
    if (declared || installed?.origin === 'declared') refuse(`${ARTIFACT_REFUSAL.notRemovable} ${fullName} is declared in murmur.yaml`);
    if (pin?.runtime === 'hook' || pin?.runtime === 'driver') refuse(`${ARTIFACT_REFUSAL.notRemovable} ${fullName} is a ${pin.runtime}`);
    if (pin?.origin === 'operator') refuse(`${ARTIFACT_REFUSAL.notRemovable} ${fullName} is pinned with origin: operator in murmur.lock`);
    if (pin !== undefined) {
      await updateLock(session.capsuleDir, (now) => {
        const { [fullName]: _gone, ...rest } = now.artifacts;
        return { lock: { ...now, artifacts: rest }, result: undefined };
      });
    }
    const tool = installed?.toolName ?? toolNameOf(fullName);
    if (installed !== undefined) {
      await rm(installed.folder, { recursive: true, force: true });
      artifacts.remove(tool);
      this.deps.removed(tool);
    }
    return {
      data: JSON.stringify({ artifact: fullName, removed: true }),
      note: `${tool} is gone from your tool list from your next turn; a call to it is refused.`,
    };
  }
}
