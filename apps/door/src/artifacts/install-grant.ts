import type { Manifest } from '../manifest/manifest.schema.js';
import { namesArtifact } from '../manifest/artifact-entries.js';

type Grant = NonNullable<Manifest['capabilities']['install']>;
export type Tier = 'tool' | 'skill';

/** Whether two names-or-prefixes can name one artifact: a full name and a prefix it starts with, or two prefixes one of which starts the other. */
function overlaps(entry: string, pattern: string): boolean {
  const a = entry.endsWith('*') ? entry.slice(0, -1) : null;
  const b = pattern.slice(0, -1);
  if (a === null) return entry.startsWith(b);
  return a.startsWith(b) || b.startsWith(a);
}

/**
 * capabilities.install (docs/artifacts.md, "The install grant"): what the agent may pull, by tier — an artifact is
 * granted when an entry of its own runtime's list names it — and whether the scopes' sources may be read.
 */
export class InstallGrant {
  constructor(private readonly grant: Grant) {}

  get fromSources(): boolean {
    return this.grant.from.includes('sources');
  }

  /** Some entry of either tier names `fullName`: checked before any place is read. */
  namesAnyTier(fullName: string): boolean {
    return [...this.grant.tool, ...this.grant.skill].some((entry) => namesArtifact(entry, fullName));
  }

  names(tier: Tier, fullName: string): boolean {
    return this.grant[tier].some((entry) => namesArtifact(entry, fullName));
  }

  /** Whether a pattern (ending in `*`) can reach a name some entry grants. */
  reaches(pattern: string): boolean {
    return [...this.grant.tool, ...this.grant.skill].some((entry) => overlaps(entry, pattern));
  }

  /** `capabilities.install.tool (a, b)`, or `(none)`, as a refusal quotes a tier. */
  quote(tier: Tier): string {
    const entries = this.grant[tier];
    return `capabilities.install.${tier} (${entries.length > 0 ? entries.join(', ') : 'none'})`;
  }

  /** The grant as pull-artifact's description lists it (seed 004). */
  describe(): string {
    const list = (tier: Tier) => (this.grant[tier].length > 0 ? this.grant[tier].join(', ') : 'none');
    return `install.tool: ${list('tool')}; install.skill: ${list('skill')}; install.from: [${this.grant.from.join(', ')}]`;
  }
}
