import { Module } from '@nestjs/common';
import { DoorLog } from '../session/door-log.js';
import { SESSION_CONTEXT, type SessionContext } from '../session/session-context.js';
import { SessionModule } from '../session/session.module.js';
import { TraceWriter } from '../session/trace-writer.js';
import { UsageLedger } from '../session/usage-ledger.js';
import { TaskEvents } from '../tasks/task-events.js';
import { TaskLifecycle } from '../tasks/task-lifecycle.js';
import { TaskQueue } from '../tasks/task-queue.js';
import { TaskStore } from '../tasks/task-store.js';
import { TasksModule } from '../tasks/tasks.module.js';
import { BackgroundCommands } from '../tools/background-commands.js';
import { ToolDispatcher } from '../tools/tool-dispatcher.js';
import { ToolsModule } from '../tools/tools.module.js';
import { AgentLoop } from './agent-loop.js';
import { CommandCompletions } from './command-completions.js';
import { loadScript, ScriptTaskDriver } from './script-driver.js';

/**
 * The agent loop, and the run queue that starts tasks on it: the queue is provided here, where its runner exists,
 * and receives the loop through its constructor.
 */
@Module({
  imports: [SessionModule, ToolsModule, TasksModule],
  providers: [
    {
      provide: AgentLoop,
      useFactory: (session: SessionContext, lifecycle: TaskLifecycle, events: TaskEvents, tools: ToolDispatcher, trace: TraceWriter, usage: UsageLedger, log: DoorLog) => {
        const script = session.scriptPath ? loadScript(session.scriptPath) : null;
        return new AgentLoop({
          session,
          lifecycle,
          events,
          tools,
          trace,
          usage,
          log,
          driverFor: (task) => {
            if (!script) throw new Error('this capsule declares no inference driver');
            return new ScriptTaskDriver(script, task.text);
          },
        });
      },
      inject: [SESSION_CONTEXT, TaskLifecycle, TaskEvents, ToolDispatcher, TraceWriter, UsageLedger, DoorLog],
    },
    {
      provide: TaskQueue,
      useFactory: (session: SessionContext, store: TaskStore, events: TaskEvents, trace: TraceWriter, lifecycle: TaskLifecycle, runner: AgentLoop) =>
        new TaskQueue({ session, store, events, trace, lifecycle, runner }),
      inject: [SESSION_CONTEXT, TaskStore, TaskEvents, TraceWriter, TaskLifecycle, AgentLoop],
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
