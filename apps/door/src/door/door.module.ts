import { Module } from '@nestjs/common';
import { METHOD } from '@murmur/protocol';
import { SESSION_CONTEXT, type SessionContext } from '../session/session-context.js';
import { SessionModule } from '../session/session.module.js';
import { TaskService } from '../tasks/task-service.js';
import { TaskStore } from '../tasks/task-store.js';
import { TasksModule } from '../tasks/tasks.module.js';
import { BackgroundCommands } from '../tools/background-commands.js';
import { ToolDispatcher } from '../tools/tool-dispatcher.js';
import { ToolsModule } from '../tools/tools.module.js';
import { CardService } from './card.service.js';
import { DoorLog } from './door-log.js';
import { SendMessageHandler } from './methods/send-message.js';
import { TaskMethods } from './methods/task-methods.js';
import { RpcPipeline } from './rpc-pipeline.js';

@Module({
  imports: [SessionModule, TasksModule, ToolsModule],
  providers: [
    { provide: CardService, useFactory: (s: SessionContext, t: ToolDispatcher) => new CardService(s, t), inject: [SESSION_CONTEXT, ToolDispatcher] },
    {
      provide: RpcPipeline,
      useFactory: (s: SessionContext, log: DoorLog, store: TaskStore, tasks: TaskService, bg: BackgroundCommands) => {
        const pipeline = new RpcPipeline(s, log);
        const methods = new TaskMethods(s, store, tasks, bg);
        pipeline.register(METHOD.SendMessage, new SendMessageHandler(s, store, tasks).handle);
        pipeline.register(METHOD.GetTask, methods.getTask);
        pipeline.register(METHOD.ListTasks, methods.listTasks);
        pipeline.register(METHOD.CancelTask, methods.cancelTask);
        pipeline.register(METHOD.StopSession, methods.stopSession);
        return pipeline;
      },
      inject: [SESSION_CONTEXT, DoorLog, TaskStore, TaskService, BackgroundCommands],
    },
  ],
  exports: [CardService, RpcPipeline],
})
export class DoorModule {}
