import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { RequestGate } from '../auth/request-gate.js';
import { DoorLog } from '../session/door-log.js';
import { SESSION_CONTEXT, type SessionContext } from '../session/session-context.js';
import { SessionModule } from '../session/session.module.js';
import { COMPLETION_SINK, type CompletionSink } from './completion-sink.js';
import { RPC_METHODS, type RpcMethod } from './rpc-context.js';
import { RpcPipeline } from './rpc-pipeline.js';

/**
 * The JSON-RPC pipeline: the seed's check order. Its methods (methods/) and its completion sink (formations/) are
 * ports bound in app.module.ts, so this layer imports neither.
 */
@Module({
  imports: [SessionModule, AuthModule],
  providers: [
    {
      provide: RpcPipeline,
      useFactory: (session: SessionContext, log: DoorLog, gate: RequestGate, methods: readonly RpcMethod[], completions: CompletionSink | null) =>
        new RpcPipeline(session, log, gate, methods, completions),
      inject: [SESSION_CONTEXT, DoorLog, RequestGate, RPC_METHODS, COMPLETION_SINK],
    },
  ],
  exports: [RpcPipeline],
})
export class RpcModule {}
