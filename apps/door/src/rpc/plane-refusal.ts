import type { Manifest } from '../manifest/manifest.schema.js';

/** The planes of seed 000 ("Planes") and where each is reached. */
export const PLANE_PATHS = { files: '/resources/files', peer_files: '/resources/peer' } as const;
export type PlaneName = keyof typeof PLANE_PATHS;

/** The plane a request path falls under, or null. */
export function planeOf(pathname: string): PlaneName | null {
  for (const [plane, root] of Object.entries(PLANE_PATHS) as [PlaneName, string][]) {
    if (pathname === root || pathname.startsWith(`${root}/`)) return plane;
  }
  return null;
}

const EXPORT_KEY: Record<PlaneName, string> = { files: 'exports.files', peer_files: 'exports.peer_files' };
const PLANE_WORDS: Record<PlaneName, string> = { files: 'the operator plane', peer_files: 'the peer plane' };

/**
 * Every request to a plane is answered with this one refusal until the planes are served (docs/decisions.md,
 * "Planes"): 404 with error `plane_not_served`. An undeclared plane refuses every request (seed 000, "Planes"); a
 * declared one says this runtime does not serve it yet. The operator plane answers it after the token and the
 * resources/files scope (step 4); the peer plane, which takes no door token (step 1), before them.
 */
export function planeRefusal(plane: PlaneName, manifest: Manifest): { status: number; body: string } {
  const declared = plane === 'files' ? manifest.exports.files !== undefined : manifest.exports.peer_files !== undefined;
  const message = declared
    ? `${PLANE_WORDS[plane]} at ${PLANE_PATHS[plane]} is declared (${EXPORT_KEY[plane]}) but this runtime does not serve planes yet`
    : `this capsule does not declare ${EXPORT_KEY[plane]}, so ${PLANE_WORDS[plane]} at ${PLANE_PATHS[plane]} serves nothing`;
  return { status: 404, body: JSON.stringify({ error: 'plane_not_served', message }) };
}
