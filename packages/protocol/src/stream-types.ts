/** The artifact frame's keys (seed 001, "artifact"), camelCased; every key present, null where it does not apply. */
export interface ToolArtifactFrameFields {
  toolName: string;
  content: string;
  fenceSource: string | null;
  toolCallId: string | null;
  isError: boolean;
  durationMs: number | null;
  exitCode: number | null;
  truncated: boolean;
}

/**
 * One subscription window a harness reported (docs/harness.md, "Frames and records"): session-status's quota entry
 * (seed 004), camelCased. Every member but `name` is absent when the harness did not report it.
 */
export interface QuotaWindowFrameFields {
  name: string;
  /** Fraction of the window used, 0 to 1. */
  used?: number;
  /** RFC 3339 UTC, to the second. */
  resetsAt?: string;
  windowMinutes?: number;
  state?: 'ok' | 'warning' | 'exhausted';
}
