import type { MurmurTaskMetadata, ResidueItem } from '@murmur/protocol';

/**
 * Something the session leaves running that a task's ending reports: background shell commands, and the sub-capsules
 * tasks delegated to. The task lifecycle reads every source through this interface and knows nothing of what is
 * behind it. A source reports what runs at the moment it is read: a delegation only while a task awaits it, so a
 * cancel reads the sources before it writes the ending that ends its task's delegations, and murmur.StopSession
 * takes those from the residue its cancels wrote (methods/stop-session.ts).
 */
export interface ResidueSource {
  /** One residue item per thing still running, oldest first (seed 000, "Residue items"). */
  residue(): ResidueItem[];
  /** metadata.murmur.runningCommands for a task ending now, or undefined when it left none running. */
  runningCommandsOf(taskId: string, endMs: number): MurmurTaskMetadata['runningCommands'];
}

export const RESIDUE_SOURCES = Symbol('RESIDUE_SOURCES');
