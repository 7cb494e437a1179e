import { Module, type OnModuleInit } from '@nestjs/common';
import { SESSION_CONTEXT, type SessionContext } from '../session/session-context.js';
import { SessionModule } from '../session/session.module.js';
import { TaskEvents } from '../tasks/task-events.js';
import { TaskService } from '../tasks/task-service.js';
import { TasksModule } from '../tasks/tasks.module.js';
import { ToolDispatcher } from '../tools/tool-dispatcher.js';
import { ToolsModule } from '../tools/tools.module.js';
import { AgentLoop } from './agent-loop.js';
import { loadScript, ScriptTaskDriver } from './script-driver.js';
import { TraceWriter } from '../session/trace-writer.js';

@Module({
  imports: [SessionModule, ToolsModule, TasksModule],
  providers: [
    {
      provide: AgentLoop,
      useFactory: (s: SessionContext, tasks: TaskService, events: TaskEvents, tools: ToolDispatcher, trace: TraceWriter) => {
        const script = s.scriptPath ? loadScript(s.scriptPath) : null;
        return new AgentLoop(s, tasks, events, tools, trace, (task) => {
          if (!script) throw new Error('this capsule declares no inference driver');
          return new ScriptTaskDriver(script, task.text);
        });
      },
      inject: [SESSION_CONTEXT, TaskService, TaskEvents, ToolDispatcher, TraceWriter],
    },
  ],
})
export class AgentModule implements OnModuleInit {
  constructor(
    private readonly loop: AgentLoop,
    private readonly tasks: TaskService,
  ) {}

  onModuleInit(): void {
    this.tasks.useRunner(this.loop);
  }
}
