import { Global, Module } from '@nestjs/common';
import { TASK_CONTINUATIONS } from '../agent/task-continuations.js';
import { SESSION_CONTEXT, type SessionContext } from '../session/session-context.js';
import { SessionModule } from '../session/session.module.js';
import { TraceWriter } from '../session/trace-writer.js';
import { Telemetry } from '../telemetry/telemetry.js';
import { MEMBER_CALL_PORT } from '../tools/runtime/index.js';
import { SYSTEM_CLOCK } from './clock.js';
import { MemberCalls } from './member-calls.js';

/**
 * A formation member's calls (docs/formations.md): provided under the tool layer's and the agent layer's own tokens,
 * so neither imports this layer. Outside a formation, or for a member that may call nobody, both are null and
 * call-member does not exist.
 */
@Global()
@Module({
  imports: [SessionModule],
  providers: [
    {
      provide: MemberCalls,
      useFactory: (session: SessionContext, trace: TraceWriter, telemetry: Telemetry) =>
        session.formation && session.formation.callees.length > 0
          ? new MemberCalls({ session, seat: session.formation, trace, clock: SYSTEM_CLOCK, traceContext: telemetry })
          : null,
      inject: [SESSION_CONTEXT, TraceWriter, Telemetry],
    },
    { provide: MEMBER_CALL_PORT, useExisting: MemberCalls },
    { provide: TASK_CONTINUATIONS, useExisting: MemberCalls },
  ],
  exports: [MEMBER_CALL_PORT, TASK_CONTINUATIONS],
})
export class FormationsModule {}
