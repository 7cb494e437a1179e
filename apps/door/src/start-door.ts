import 'reflect-metadata';
import type { IncomingMessage } from 'node:http';
import path from 'node:path';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module.js';
import { removeControlToken } from './auth/control-token.js';
import { RequestGate } from './auth/request-gate.js';
import { type MintedToken, removeTokens } from './auth/tokens.js';
import { TraceWriter } from './records/trace-writer.js';
import { NO_ROUTE_SCHEMAS } from './common/no-route-schemas.js';
import { RPC_FAST_LANE, type RpcFastLane, serverWithFastLane } from './rpc/rpc-fast-lane.js';
import { DOOR_ROUTES, type DoorRoutes, registerDoorRoutes } from './rpc/rpc-routes.js';
import { routableUrl } from './rpc/request-target.js';
import { RpcPipeline } from './rpc/rpc-pipeline.js';
import type { SessionContext } from './session/session-context.js';
import { StreamHub } from './streaming/stream-hub.js';
import type { TaskRow } from './tasks/task.entity.js';
import { TaskLifecycle } from './tasks/task-lifecycle.js';
import { TaskQueue } from './tasks/task-queue.js';
import { Telemetry } from './telemetry/telemetry.js';
import type { OutboundTracing } from './egress/outbound-tracing.js';
import { ProcessRegistry } from './tools/process-registry.js';
import { DriverSelection } from './tools/runtime/index.js';
import { SessionSandbox } from './tools/sandbox/session-sandbox.js';
import { ToolDispatcher } from './tools/tool-dispatcher.js';

/** How long closing waits for open connections before it ends them. */
const CLOSE_GRACE_MS = 500;

export interface RunningDoor {
  readonly url: string;
  readonly sessionId: string;
  readonly recordsDir: string;
  readonly tasks: TaskQueue;
  readonly trace: TraceWriter;
  /** Client spans for requests the door sends outside a task's tools (a delegation's completion); untraced when telemetry is off. */
  readonly tracing: OutboundTracing;
  /** Tokens minted after launch that this door accepts from now on: a formation's member tokens. */
  acceptTokens(tokens: readonly MintedToken[]): void;
  /** Resolves with a task's row once it settles (ends, or pauses for input), or when the door closes. */
  settled(taskId: string): Promise<TaskRow>;
  /**
   * Ends live tasks (canceled; or failed with `failure` when the session ends on its own), answers held requests,
   * stops listening, kills every command's process group, closes the store.
   */
  close(failure?: string): Promise<void>;
}

/** Starts the door of a staged session and resolves once it is listening. */
export async function startDoor(session: SessionContext): Promise<RunningDoor> {
  // Commands a previous run of this session left (a door killed with SIGKILL): killed if they still run, reported.
  const lost = ProcessRegistry.reopen(path.join(session.recordsDir, 'processes'), session.sessionId);
  // The common request (POST / with a small JSON body) takes the fast lane once the app is made; the rest, Fastify.
  let fastLane: RpcFastLane | null = null;
  const adapter = new FastifyAdapter({
    serverFactory: serverWithFastLane(() => fastLane),
    logger: false,
    forceCloseConnections: 'idle',
    return503OnClosing: false,
    rewriteUrl: (req: IncomingMessage) => routableUrl(req.url),
    schemaController: NO_ROUTE_SCHEMAS,
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forSession(session), adapter, {
    bodyParser: false,
    logger: false,
    abortOnError: false,
  });
  // Everything served was built by the container (app.module.ts, door-surface.ts): routed here, then listened on.
  registerDoorRoutes(app.getHttpAdapter().getInstance(), app.get<DoorRoutes>(DOOR_ROUTES));
  fastLane = app.get<RpcFastLane>(RPC_FAST_LANE);
  await app.listen({ port: session.requestedPort, host: session.host });
  const address = app.getHttpServer().address();
  if (address === null || typeof address === 'string') throw new Error('the door is not listening on a TCP port');
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  session.url = `http://${host}:${address.port}`;

  app.get(Telemetry).attach({
    driverKindNow: () => app.get(DriverSelection).current?.driver,
    url: session.url,
    observe: (observer) => app.get(RpcPipeline).setObserver(observer),
  });
  const tasks = app.get(TaskQueue);
  const trace = app.get(TraceWriter);
  const processes = app.get(ProcessRegistry);
  const sandbox = app.get(SessionSandbox);
  trace.write('session_start', {
    session_id: session.sessionId,
    name: session.manifest.name,
    version: session.manifest.version,
    url: session.url,
    resumed: session.resumed,
    tools_declared: app.get(ToolDispatcher).inventory.names(),
    // How the session's commands run (docs/sandbox.md): an opt-out is on the record.
    sandbox: sandbox.record,
  });
  if (lost.length > 0) {
    trace.write('commands_lost', { commands: lost.map(({ group, wasRunning }) => ({ ...group, killed_on_reopen: wasRunning })) });
    if (session.manifest.lifecycle.task_acceptance !== 'none') await tasks.submitSessionTask(lostCommandsReport(lost));
  }
  let closing: Promise<void> | null = null;
  return {
    url: session.url,
    sessionId: session.sessionId,
    recordsDir: session.recordsDir,
    tasks,
    trace,
    tracing: app.get(Telemetry),
    acceptTokens: (tokens) => app.get(RequestGate).acceptTokens(tokens),
    settled: (taskId) => app.get(TaskLifecycle).waitSettled(taskId),
    close: (failure?: string) => {
      closing ??= (async () => {
        await tasks.close(failure);
        // The capsule closes its stream while the door still serves: watchers read capsule-closed.
        app.get(StreamHub).close();
        await new Promise((resolve) => setImmediate(resolve));
        // Held answers and ended streams are written by now; a connection still open after a short grace (a
        // client's spare keep-alive socket that never sent a request) is not waited for.
        const server = app.getHttpServer();
        const force = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
        await app.close();
        clearTimeout(force);
        // Every command of the session, foreground or background, ends with it: SIGTERM, SIGKILL 2 s later.
        await processes.killAll();
        sandbox.release();
        trace.write('session_end', { session_id: session.sessionId });
        removeTokens(session.recordsDir);
        removeControlToken(session.recordsDir);
      })();
      return closing;
    },
  };
}

/** A resumed launch's report of the commands it lost (seed 000, "Who sees a task"): the text of a session task. */
function lostCommandsReport(lost: ReturnType<typeof ProcessRegistry.reopen>): string {
  const lines = lost.map(({ group, wasRunning }) => {
    const handle = group.workId ?? 'a foreground call';
    const fate = wasRunning ? 'still running, killed on resume' : 'already ended';
    return `- ${handle} (${group.binary}): ${group.command} — task ${group.taskId}, started ${new Date(group.startedAtMs).toISOString()}; ${fate}`;
  });
  return `This session was resumed after its door stopped without ending it. The commands it had started were lost:\n${lines.join('\n')}`;
}
