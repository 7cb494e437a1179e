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
