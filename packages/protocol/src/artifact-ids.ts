/**
 * The artifact ids the door gives a task's own artifacts (seed 000, "Artifacts"). Each occurs at most once in a
 * task; a tool's artifacts travel as murmur `artifact` frames, never under these ids.
 */
export const ARTIFACT_ID = {
  /** The agent's answer, sent before the COMPLETED status. */
  response: 'response',
  /** What the agent asks when it pauses in TASK_STATE_INPUT_REQUIRED. */
  prompt: 'prompt',
  /** What a canceled or stopped task leaves running: data parts holding ResidueItems. */
  residue: 'residue',
} as const;

export type ArtifactId = (typeof ARTIFACT_ID)[keyof typeof ARTIFACT_ID];
