import { encodeRefusalBody, type PlaneName, planeNotServedRefusal, refusalStatus } from '@murmur/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Manifest } from '../manifest/manifest.schema.js';

/**
 * A served plane, as the routes see it: planes/ implements it and door-surface.ts hands it in, so rpc/ (the same layer as
 * planes/) never imports it. `target` is the request target as the client sent it, before any rewrite.
 */
export interface PlaneServer {
  answer(request: FastifyRequest, reply: FastifyReply, target: string): Promise<FastifyReply>;
}

/** The planes this door serves; a declared plane with no server here keeps answering plane_not_served. */
export type PlaneServers = Partial<Readonly<Record<PlaneName, PlaneServer>>>;

/** Where each plane of seed 000 ("Planes") is reached. */
const PLANE_PATHS: Readonly<Record<PlaneName, string>> = { files: '/resources/files', peer_files: '/resources/peer' };

/** PLANE_PATHS as [plane, root, root/], made once: planeOf runs on every request. */
const PLANE_PREFIXES: readonly (readonly [PlaneName, string, string])[] = (Object.entries(PLANE_PATHS) as [PlaneName, string][]).map(
  ([plane, root]) => [plane, root, `${root}/`] as const,
);

/** The plane a request path falls under, or null. */
export function planeOf(pathname: string): PlaneName | null {
  for (const [plane, root, under] of PLANE_PREFIXES) {
    if (pathname === root || pathname.startsWith(under)) return plane;
  }
  return null;
}

/**
 * A request to an undeclared plane, or to a declared plane this door does not serve, is answered with this one
 * refusal (docs/decisions.md, "Planes"): 404 plane_not_served. The operator plane answers it after the door token and the resources/files scope
 * (step 4); the peer plane, which takes no door token (step 1), before them.
 */
export function planeRefusal(plane: PlaneName, manifest: Manifest): { status: number; body: string } {
  const declared = plane === 'files' ? manifest.exports.files !== undefined : manifest.exports.peer_files !== undefined;
  return { status: refusalStatus('plane_not_served'), body: encodeRefusalBody(planeNotServedRefusal(plane, declared)) };
}
