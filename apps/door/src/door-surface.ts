/**
 * The door's surface as providers (docs/architecture.md, "Where a thing is built"): the planes, the record plane, the
 * control surface, the intake budgets, the fast lane, and the routes that serve them, each made by the container from
 * what it needs. app.module.ts lists them; start-door.ts registers DOOR_ROUTES, hands RPC_FAST_LANE to the server and
 * listens.
 */
import path from 'node:path';
import type { Provider } from '@nestjs/common';
import { ControlGate } from './auth/control-token.js';
import { RequestGate } from './auth/request-gate.js';
import { CardService } from './card/card.service.js';
import { ControlSurface } from './control/control-surface.js';
import { PeerHandles } from './peers/peer-handles.js';
import { FilesPlane } from './planes/files-plane.js';
import { PeerPlane } from './planes/peer-plane.js';
import { TraceWriter } from './records/trace-writer.js';
import { DOOR_INTAKE, type DoorIntake, doorIntakeFor } from './rpc/intake-budget.js';
import type { PlaneServer, PlaneServers } from './rpc/plane-refusal.js';
import { RPC_FAST_LANE, rpcFastLane } from './rpc/rpc-fast-lane.js';
import { RpcPipeline } from './rpc/rpc-pipeline.js';
import { bodyLimitFor, DOOR_ROUTES, type DoorRoutes } from './rpc/rpc-routes.js';
import { SESSION_CONTEXT, type SessionContext } from './session/session-context.js';
import { DriverSelection } from './tools/runtime/index.js';

/** The largest request body this session's door reads: its images' bounds decide it (rpc-routes.ts). */
const bodyLimitOf = (session: SessionContext) => bodyLimitFor(session.manifest.context.images.max_bytes, session.manifest.context.images.max_per_turn);

/** The planes this door serves (docs/planes.md): each one declared, rooted in the capsule folder. */
function servedPlanes(session: SessionContext, handles: PeerHandles, trace: TraceWriter): PlaneServers {
  const { files, peer_files: peerFiles } = session.manifest.exports;
  return {
    ...(files === undefined ? {} : { files: new FilesPlane(path.resolve(session.capsuleDir, files.root)) }),
    ...(peerFiles === undefined ? {} : { peer_files: new PeerPlane(path.resolve(session.capsuleDir, peerFiles.root), handles, trace) }),
  };
}

/** The record plane's provider: every door serves it (docs/console.md, "Every door serves its record"). */
const RECORDS_PLANE = Symbol('RECORDS_PLANE');

/**
 * The record plane of the door's own session, loaded with its first request: the record's read side (record-reads/)
 * is a chunk of its own, which a door nobody reads the record of never compiles nor holds (docs/benchmarks.md, issue 39).
 */
function recordsPlaneOf(session: SessionContext): PlaneServer {
  let plane: Promise<PlaneServer> | null = null;
  const load = async (): Promise<PlaneServer> => {
    const { RecordsPlane } = await import('./planes/records-plane.js');
    return new RecordsPlane({
      sessionId: session.sessionId,
      name: session.manifest.name,
      recordsDir: session.recordsDir,
      startedAtMs: session.startedAtMs,
      url: () => session.url || null,
      memberUrl: (member) => session.formation?.link(member)?.url ?? null,
      formation: () => session.formation?.record() ?? null,
    });
  };
  return {
    answer: async (request, reply, target) => {
      plane ??= load();
      return (await plane).answer(request, reply, target);
    },
  };
}

export const DOOR_SURFACE: Provider[] = [
  { provide: DOOR_INTAKE, useFactory: (session: SessionContext): DoorIntake => doorIntakeFor(bodyLimitOf(session)), inject: [SESSION_CONTEXT] },
  { provide: RECORDS_PLANE, useFactory: recordsPlaneOf, inject: [SESSION_CONTEXT] },
  {
    provide: ControlSurface,
    useFactory: (session: SessionContext, gate: ControlGate, drivers: DriverSelection, trace: TraceWriter) =>
      new ControlSurface({ session, gate, drivers, trace }),
    inject: [SESSION_CONTEXT, ControlGate, DriverSelection, TraceWriter],
  },
  {
    // The common request (POST / with a small JSON body) takes the fast lane; the rest, Fastify's routes.
    provide: RPC_FAST_LANE,
    useFactory: (session: SessionContext, gate: RequestGate, rpc: RpcPipeline, intake: DoorIntake) =>
      rpcFastLane({ gate, rpc, smallIntake: intake.small, bodyLimit: bodyLimitOf(session) }),
    inject: [SESSION_CONTEXT, RequestGate, RpcPipeline, DOOR_INTAKE],
  },
  {
    provide: DOOR_ROUTES,
    useFactory: (
      session: SessionContext,
      gate: RequestGate,
      card: CardService,
      rpc: RpcPipeline,
      intake: DoorIntake,
      handles: PeerHandles,
      trace: TraceWriter,
      records: PlaneServer,
      control: ControlSurface,
    ): DoorRoutes => ({
      gate,
      card,
      rpc,
      manifest: session.manifest,
      bodyLimit: bodyLimitOf(session),
      intake,
      planes: servedPlanes(session, handles, trace),
      records,
      control,
    }),
    inject: [SESSION_CONTEXT, RequestGate, CardService, RpcPipeline, DOOR_INTAKE, PeerHandles, TraceWriter, RECORDS_PLANE, ControlSurface],
  },
];
