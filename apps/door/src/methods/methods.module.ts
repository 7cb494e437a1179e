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
import { AuthModule } from '../auth/auth.module.js';
import { RequestGate } from '../auth/request-gate.js';
import { CardService } from '../card/card.service.js';
import { DoorLog } from '../session/door-log.js';
import { MessageIntake } from './message-intake.js';
import { SendMessageHandler } from './send-message.js';
import { StreamHub } from '../streaming/stream-hub.js';
import { StreamMethods } from './stream-methods.js';
import { StreamingModule } from '../streaming/streaming.module.js';
import { TaskMethods } from './task-methods.js';
import { RpcPipeline } from '../rpc/rpc-pipeline.js';

@Module({
  imports: [SessionModule, TasksModule, ToolsModule, StreamingModule, AuthModule],
  providers: [
    { provide: CardService, useFactory: (s: SessionContext, t: ToolDispatcher) => new CardService(s, t), inject: [SESSION_CONTEXT, ToolDispatcher] },
    {
      provide: RpcPipeline,
      useFactory: (s: SessionContext, log: DoorLog, store: TaskStore, tasks: TaskService, bg: BackgroundCommands, hub: StreamHub, gate: RequestGate, card: CardService) => {
        const pipeline = new RpcPipeline(s, log, gate);
        const methods = new TaskMethods(s, store, tasks, bg);
        const intake = new MessageIntake(s, store, tasks);
        const streams = new StreamMethods(s, store, hub, intake, log);
        pipeline.register(METHOD.SendMessage, new SendMessageHandler(intake, store, tasks).handle);
        pipeline.register(METHOD.SendStreamingMessage, streams.sendStreamingMessage);
        pipeline.register(METHOD.SubscribeToTask, streams.subscribeToTask);
        pipeline.register(METHOD.WatchSession, streams.watchSession);
        pipeline.register(METHOD.GetTask, methods.getTask);
        pipeline.register(METHOD.ListTasks, methods.listTasks);
        pipeline.register(METHOD.CancelTask, methods.cancelTask);
        pipeline.register(METHOD.StopSession, methods.stopSession);
        pipeline.register(METHOD.GetExtendedAgentCard, async () => ({ result: card.extendedCard() }));
        return pipeline;
      },
      inject: [SESSION_CONTEXT, DoorLog, TaskStore, TaskService, BackgroundCommands, StreamHub, RequestGate, CardService],
    },
  ],
  exports: [CardService, RpcPipeline],
})
export class MethodsModule {}
