import { Module } from '@nestjs/common';
import { SESSION_CONTEXT, type SessionContext } from '../session/session-context.js';
import { RequestGate } from './request-gate.js';

@Module({
  providers: [{ provide: RequestGate, useFactory: (s: SessionContext) => new RequestGate(s), inject: [SESSION_CONTEXT] }],
  exports: [RequestGate],
})
export class AuthModule {}
