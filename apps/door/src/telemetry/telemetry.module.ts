import { Global, Module } from '@nestjs/common';
import { DoorLog } from '../session/door-log.js';
import { SESSION_CONTEXT, type SessionContext } from '../session/session-context.js';
import { SessionModule } from '../session/session.module.js';
import { TraceWriter } from '../records/trace-writer.js';
import { TaskEvents } from '../tasks/task-events.js';
import { TasksModule } from '../tasks/tasks.module.js';
import { Telemetry } from './telemetry.js';

/** OpenTelemetry export (docs/telemetry.md); the SDK is loaded here only when an OTLP endpoint is set. */
@Global()
@Module({
  imports: [SessionModule, TasksModule],
  providers: [
    {
      provide: Telemetry,
      useFactory: (session: SessionContext, trace: TraceWriter, events: TaskEvents, log: DoorLog) =>
        Telemetry.start({
          trace,
          events,
          log,
          settings: session.settings,
          agentName: session.manifest.name,
          sessionId: session.sessionId,
          serviceVersion: session.manifest.version,
          // A member that calls others coordinates its formation: a task from outside runs it as a workflow.
          formation: session.formation !== null && session.formation.callees.length > 0 ? session.formation.formation : null,
        }),
      inject: [SESSION_CONTEXT, TraceWriter, TaskEvents, DoorLog],
    },
  ],
  exports: [Telemetry],
})
export class TelemetryModule {}
