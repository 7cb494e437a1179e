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
  added: string[];
  removed: string[];
}

/**
 * The session's artifacts, by tool name: the declared ones from staging, the pulled ones as pull-artifact installs
 * them, and the tool names remove-artifact took out (a later call naming one is refused as removed, seed 004).
 */
export class SessionArtifacts {
  private readonly byTool = new Map<string, InstalledArtifact>();
  private readonly removedNames = new Set<string>();
  private change: ToolsChange = { added: [], removed: [] };

  constructor(declared: readonly InstalledArtifact[]) {
    for (const artifact of declared) this.byTool.set(artifact.toolName, artifact);
  }

  all(): InstalledArtifact[] {
    return [...this.byTool.values()];
  }

  byToolName(name: string): InstalledArtifact | undefined {
    return this.byTool.get(name);
  }

  byFullName(fullName: string): InstalledArtifact | undefined {
    return this.all().find((a) => a.fullName === fullName);
  }

  /** Whether remove-artifact took `name` out of this session (and nothing has taken it again). */
  wasRemoved(name: string): boolean {
    return this.removedNames.has(name);
  }

  add(artifact: InstalledArtifact): void {
    this.byTool.set(artifact.toolName, artifact);
    this.removedNames.delete(artifact.toolName);
    this.change.added.push(artifact.toolName);
  }

  remove(toolName: string): void {
    this.byTool.delete(toolName);
    this.removedNames.add(toolName);
    this.change.removed.push(toolName);
  }

  /** What changed since the last call was sent its tools, once; null when nothing did. */
  takeChange(): ToolsChange | null {
    if (this.change.added.length === 0 && this.change.removed.length === 0) return null;
    const change = this.change;
    this.change = { added: [], removed: [] };
    return change;
  }
}
