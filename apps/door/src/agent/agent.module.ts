import { Module } from '@nestjs/common';
import { DoorLog } from '../session/door-log.js';
import { SESSION_CONTEXT, type SessionContext } from '../session/session-context.js';
import { SessionModule } from '../session/session.module.js';
import { TraceWriter } from '../records/trace-writer.js';
import { QuotaWindows } from '../usage/quota-windows.js';
import { UsageLedger } from '../usage/usage-ledger.js';
import { SpendCeilings } from '../usage/spend-ceilings.js';
import { TaskEvents } from '../tasks/task-events.js';
import { TaskLifecycle } from '../tasks/task-lifecycle.js';
import { TaskQueue, type TaskRunner } from '../tasks/task-queue.js';
import { TaskStore } from '../tasks/task-store.js';
import { TasksModule } from '../tasks/tasks.module.js';
import { BackgroundCommands } from '../tools/background-commands.js';
import { ProcessRegistry } from '../tools/process-registry.js';
import { SessionSandbox } from '../tools/sandbox/session-sandbox.js';
import { DriverSelection } from '../tools/runtime/index.js';
import { ToolDispatcher } from '../tools/tool-dispatcher.js';
import { ToolsModule } from '../tools/tools.module.js';
import { AgentLoop } from './agent-loop.js';
import { CommandCompletions } from './command-completions.js';
import { createDriverFactory } from './drivers/driver-factory.js';
import { DriverSessionScope } from './drivers/session-scope.js';
import { createHarnessLoop } from './harness/harness-setup.js';
import { TASK_CONTINUATIONS, type TaskContinuations } from './task-continuations.js';

/** The task runner: the http agent loop, or a harness's (transport: process). */
const TASK_RUNNER = Symbol('TaskRunner');

/**
 * The agent loop, and the run queue that starts tasks on it: the queue is provided here, where its runner exists,
 * and receives the loop through its constructor.
 */
@Module({
  imports: [SessionModule, ToolsModule, TasksModule],
  providers: [
    { provide: DriverSessionScope, useFactory: () => new DriverSessionScope() },
    {
      provide: TASK_RUNNER,
      useFactory: (
        session: SessionContext,
        lifecycle: TaskLifecycle,
        events: TaskEvents,
        tools: ToolDispatcher,
        trace: TraceWriter,
        usage: UsageLedger,
        spend: SpendCeilings,
        log: DoorLog,
        selection: DriverSelection,
        scope: DriverSessionScope,
        sandbox: SessionSandbox,
        processes: ProcessRegistry,
        quota: QuotaWindows,
        continuations?: TaskContinuations,
      ): TaskRunner | Promise<TaskRunner> => {
        const steps = { session, lifecycle, events, tools, trace, usage, spend, selection, log, continuations: continuations ?? null };
        // A harness runs the turns of a capsule on transport: process (docs/harness.md); the http loop every other's.
        if (session.manifest.inference?.transport === 'process') return createHarnessLoop({ ...steps, sandbox, processes, quota });
        // Every task runs on the selected driver choice (docs/drivers.md); scripts load and validate here, at launch.
        const driverFor = createDriverFactory({ selection, trace, sessionSignal: scope.signal, variables: session.settings });
        return new AgentLoop({ ...steps, driverFor });
      },
      inject: [
        SESSION_CONTEXT,
        TaskLifecycle,
        TaskEvents,
        ToolDispatcher,
        TraceWriter,
        UsageLedger,
        SpendCeilings,
        DoorLog,
        DriverSelection,
        DriverSessionScope,
        SessionSandbox,
        ProcessRegistry,
        QuotaWindows,
        // A formation member's continuations (formations/, under this layer's token); absent outside a formation.
        { token: TASK_CONTINUATIONS, optional: true },
      ],
    },
    {
      provide: TaskQueue,
      useFactory: (session: SessionContext, store: TaskStore, events: TaskEvents, trace: TraceWriter, lifecycle: TaskLifecycle, runner: TaskRunner) =>
        new TaskQueue({ session, store, events, trace, lifecycle, runner }),
      inject: [SESSION_CONTEXT, TaskStore, TaskEvents, TraceWriter, TaskLifecycle, TASK_RUNNER],
    },
    {
      provide: CommandCompletions,
      useFactory: (session: SessionContext, background: BackgroundCommands, queue: TaskQueue, trace: TraceWriter) =>
        new CommandCompletions({ session, background, queue, trace }),
      inject: [SESSION_CONTEXT, BackgroundCommands, TaskQueue, TraceWriter],
    },
  ],
  exports: [TaskQueue],
})
export class AgentModule {}
