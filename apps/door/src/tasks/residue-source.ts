import type { MurmurTaskMetadata, ResidueItem } from '@murmur/protocol';

/**
 * Something the session leaves running that a task's ending reports: background shell commands today, delegations
 * later. The task lifecycle reads every source through this interface and knows nothing of what is behind it.
 */
export interface ResidueSource {
  /** One residue item per thing still running, oldest first (seed 000, "Residue items"). */
  residue(): ResidueItem[];
  /** metadata.murmur.runningCommands for a task ending now, or undefined when it left none running. */
  runningCommandsOf(taskId: string, endMs: number): MurmurTaskMetadata['runningCommands'];
}

export const RESIDUE_SOURCES = Symbol('RESIDUE_SOURCES');
