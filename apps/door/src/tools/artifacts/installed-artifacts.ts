import type { ArtifactPlace, JsonObject } from '@murmur/protocol';

/** An artifact of the session: staged from murmur.yaml or pulled, unpacked into runtime/tools/<tool name>/. */
export interface InstalledArtifact {
  fullName: string;
  version: string;
  digest: string;
  runtime: 'tool' | 'skill';
  implementation: 'native' | 'wasm' | null;
  toolName: string;
  description: string;
  inputSchema: JsonObject;
  /** Its unpacked folder on the host. */
  folder: string;
  /** Its entry, relative to the folder. */
  entry: string;
  origin: 'declared' | 'pulled';
  fetchedFrom: ArtifactPlace;
}

/** What changed in the tool list since the last inference call was sent it (seed 004: tools_refreshed). */
export interface ToolsChange {
  added: InstalledArtifact[];
  removed: string[];
}

/**
 * The session's artifacts, by tool name: the declared ones from staging, the pulled ones as pull-artifact installs
 * them, and the tool names remove-artifact took out (a later call naming one is refused as removed, seed 004). A pull
 * is usable from the next turn: it waits here until the next inference call is sent its tools (takeChange), while a
 * removal holds at once, for the calls after it in the same turn.
 */
export class SessionArtifacts {
  private readonly active = new Map<string, InstalledArtifact>();
  private readonly pulledThisTurn = new Map<string, InstalledArtifact>();
  private readonly removedNames = new Set<string>();
  private removedThisTurn: string[] = [];

  constructor(declared: readonly InstalledArtifact[]) {
    for (const artifact of declared) this.active.set(artifact.toolName, artifact);
  }

  /** Every artifact the session holds, those pulled in this turn included. */
  all(): InstalledArtifact[] {
    return [...this.active.values(), ...this.pulledThisTurn.values()];
  }

  /** The artifact a call of `name` reaches: one the session held when this turn's tools were sent. */
  callable(name: string): InstalledArtifact | undefined {
    return this.active.get(name);
  }

  /** The artifact holding a tool name, pulled in this turn or before. */
  holding(name: string): InstalledArtifact | undefined {
    return this.active.get(name) ?? this.pulledThisTurn.get(name);
  }

  byFullName(fullName: string): InstalledArtifact | undefined {
    return this.all().find((a) => a.fullName === fullName);
  }

  /** Whether `name` was pulled in this turn, so is callable only from the next. */
  pulledNow(name: string): boolean {
    return this.pulledThisTurn.has(name);
  }

  /** Whether remove-artifact took `name` out of this session (and nothing has taken it again). */
  wasRemoved(name: string): boolean {
    return this.removedNames.has(name);
  }

  add(artifact: InstalledArtifact): void {
    this.pulledThisTurn.set(artifact.toolName, artifact);
    this.removedNames.delete(artifact.toolName);
  }

  remove(toolName: string): void {
    this.removedNames.add(toolName);
    // Pulled and removed in one turn: the tool list never had it.
    if (this.pulledThisTurn.delete(toolName)) return;
    this.active.delete(toolName);
    this.removedThisTurn.push(toolName);
  }

  /** What changed since the last call was sent its tools, once; the pulls become callable. Null when nothing did. */
  takeChange(): ToolsChange | null {
    if (this.pulledThisTurn.size === 0 && this.removedThisTurn.length === 0) return null;
    const change = { added: [...this.pulledThisTurn.values()], removed: this.removedThisTurn };
    for (const artifact of change.added) this.active.set(artifact.toolName, artifact);
    this.pulledThisTurn.clear();
    this.removedThisTurn = [];
    return change;
  }
}
