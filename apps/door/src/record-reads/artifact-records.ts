import type { ArtifactPlace, SessionArtifact } from '@murmur/protocol';
import type { TraceLine } from '../records/trace-schema.js';

/**
 * A session's artifacts, rebuilt from its trace (docs/artifacts.md, "Records"): artifact_staged for each declared one,
 * artifact_pulled for each pull, and tools_refreshed naming what a removal took out. Read from the records, as peer
 * handles are, so an ended session's list is there too and the door gains no route. Oldest first.
 */
export function artifactsOf(records: readonly TraceLine[]): SessionArtifact[] {
  const artifacts: SessionArtifact[] = [];
  for (const record of records) {
    if (record.type === 'artifact_staged' || record.type === 'artifact_pulled') {
      artifacts.push({
        artifact: record.artifact,
        version: record.version,
        digest: record.digest,
        runtime: record.runtime,
        implementation: record.implementation,
        toolName: record.tool_name,
        fetchedFrom: record.fetched_from as ArtifactPlace,
        origin: record.type === 'artifact_staged' ? 'declared' : 'pulled',
        taskId: record.type === 'artifact_pulled' ? record.task_id : null,
        at: record.ts,
        removedAt: null,
      });
    } else if (record.type === 'tools_refreshed') {
      for (const name of record.removed) {
        const removed = artifacts.findLast((a) => a.toolName === name && a.removedAt === null);
        if (removed) removed.removedAt = record.ts;
      }
    }
  }
  return artifacts;
}
