import { encodeRefusalBody, type PlaneName, planeNotServedRefusal, refusalStatus } from '@murmur/protocol';
import type { Manifest } from '../manifest/manifest.schema.js';

/** Where each plane of seed 000 ("Planes") is reached. */
const PLANE_PATHS: Readonly<Record<PlaneName, string>> = { files: '/resources/files', peer_files: '/resources/peer' };

/** The plane a request path falls under, or null. */
export function planeOf(pathname: string): PlaneName | null {
  for (const [plane, root] of Object.entries(PLANE_PATHS) as [PlaneName, string][]) {
    if (pathname === root || pathname.startsWith(`${root}/`)) return plane;
  }
  return null;
}

/**
 * Every request to a plane is answered with this one refusal until the planes are served (docs/decisions.md,
 * "Planes"): 404 plane_not_served. The operator plane answers it after the door token and the resources/files scope
 * (step 4); the peer plane, which takes no door token (step 1), before them.
 */
export function planeRefusal(plane: PlaneName, manifest: Manifest): { status: number; body: string } {
  const declared = plane === 'files' ? manifest.exports.files !== undefined : manifest.exports.peer_files !== undefined;
  return { status: refusalStatus('plane_not_served'), body: encodeRefusalBody(planeNotServedRefusal(plane, declared)) };
}
