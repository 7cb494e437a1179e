import { Global, Module } from '@nestjs/common';
import { TASK_CONTINUATIONS } from '../agent/task-continuations.js';
import { RequestGate } from '../auth/request-gate.js';
import { AuthModule } from '../auth/auth.module.js';
import { DoorLog } from '../session/door-log.js';
import { SESSION_CONTEXT, type SessionContext } from '../session/session-context.js';
import { SessionModule } from '../session/session.module.js';
import { TraceWriter } from '../records/trace-writer.js';
import { TasksModule } from '../tasks/tasks.module.js';
import { TaskStore } from '../tasks/task-store.js';
import { Telemetry } from '../telemetry/telemetry.js';
import { DELEGATE_PORT, MEMBER_CALL_PORT } from '../tools/runtime/index.js';
import { SYSTEM_CLOCK } from './clock.js';
import { Continuations } from './continuations.js';
import { Delegations } from './delegations.js';
import { delegationDeadlineSecs, MemberCalls } from './member-calls.js';

/**
 * A formation member's calls and a session's delegations (docs/formations.md): provided under the tool layer's and
 * the agent layer's own tokens, so neither imports this layer. Outside a formation, or for a member that may call
 * nobody, the member calls are null and call-member does not exist; without capabilities.spawn.allow the
 * delegations are null and delegate-task does not exist. What the rest of the door reads of them (a task's ending
 * holds, the residue a task's ending reports, the pipeline's completion sink) is bound in app.module.ts.
 */
@Global()
@Module({
  imports: [SessionModule, TasksModule, AuthModule],
  providers: [
    {
      provide: MemberCalls,
      useFactory: (session: SessionContext, trace: TraceWriter, telemetry: Telemetry) =>
        session.formation && session.formation.callees.length > 0
          ? new MemberCalls({ session, seat: session.formation, trace, clock: SYSTEM_CLOCK, outbound: telemetry })
          : null,
      inject: [SESSION_CONTEXT, TraceWriter, Telemetry],
    },
    {
      provide: Delegations,
      useFactory: (session: SessionContext, trace: TraceWriter, store: TaskStore, gate: RequestGate, log: DoorLog, telemetry: Telemetry) =>
        session.manifest.capabilities.spawn.allow.length === 0
          ? null
          : new Delegations({
              session,
              trace,
              contextOf: (taskId) => store.row(taskId)?.contextId,
              acceptToken: (token) => gate.acceptTokens([token]),
              deadlineSecs: () => delegationDeadlineSecs(session),
              log: (line) => log.info('delegation', { line }),
              traceContext: telemetry,
            }),
      inject: [SESSION_CONTEXT, TraceWriter, TaskStore, RequestGate, DoorLog, Telemetry],
    },
    {
      provide: TASK_CONTINUATIONS,
      useFactory: (calls: MemberCalls | null, delegations: Delegations | null, trace: TraceWriter) =>
        calls === null && delegations === null ? null : new Continuations(calls, delegations, trace),
      inject: [MemberCalls, Delegations, TraceWriter],
    },
    { provide: MEMBER_CALL_PORT, useExisting: MemberCalls },
    { provide: DELEGATE_PORT, useExisting: Delegations },
  ],
  exports: [MemberCalls, Delegations, MEMBER_CALL_PORT, DELEGATE_PORT, TASK_CONTINUATIONS],
})
export class FormationsModule {}
