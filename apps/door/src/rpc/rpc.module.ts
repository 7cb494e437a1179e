import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { RequestGate } from '../auth/request-gate.js';
import { DoorLog } from '../session/door-log.js';
import { SESSION_CONTEXT, type SessionContext } from '../session/session-context.js';
import { SessionModule } from '../session/session.module.js';
import { RpcPipeline } from './rpc-pipeline.js';

/** The JSON-RPC pipeline: the seed's check order. Methods register themselves with it (MethodsModule). */
@Module({
  imports: [SessionModule, AuthModule],
  providers: [
    {
      provide: RpcPipeline,
      useFactory: (session: SessionContext, log: DoorLog, gate: RequestGate) => new RpcPipeline(session, log, gate),
      inject: [SESSION_CONTEXT, DoorLog, RequestGate],
    },
  ],
  exports: [RpcPipeline],
})
export class RpcModule {}
