import { Inject, Module, type OnModuleInit, type Type } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { AgentModule } from '../agent/agent.module.js';
import { CardModule } from '../card/card.module.js';
import { RpcModule } from '../rpc/rpc.module.js';
import type { RpcMethod } from '../rpc/rpc-context.js';
import { RpcPipeline } from '../rpc/rpc-pipeline.js';
import { SessionModule } from '../session/session.module.js';
import { StreamingModule } from '../streaming/streaming.module.js';
import { TasksModule } from '../tasks/tasks.module.js';
import { CancelTaskMethod } from './cancel-task.js';
import { GetExtendedAgentCardMethod } from './get-extended-agent-card.js';
import { GetTaskMethod } from './get-task.js';
import { ListTasksMethod } from './list-tasks.js';
import { MessageIntake } from './message-intake.js';
import { SendMessageMethod } from './send-message.js';
import { SendStreamingMessageMethod } from './send-streaming-message.js';
import { StopSessionMethod } from './stop-session.js';
import { StreamConnections } from './stream-connections.js';
import { SubscribeToTaskMethod } from './subscribe-to-task.js';
import { TaskStreamWriter } from './task-stream.js';
import { WatchSessionMethod } from './watch-session.js';

/**
 * Every method handler the door has. Adding a method is a class implementing RpcMethod and a line here: each is
 * registered with the pipeline under its own name, and the pipeline serves it when the card lists it.
 */
const METHODS: Type<RpcMethod>[] = [
  SendMessageMethod,
  SendStreamingMessageMethod,
  WatchSessionMethod,
  GetTaskMethod,
  ListTasksMethod,
  CancelTaskMethod,
  SubscribeToTaskMethod,
  StopSessionMethod,
  GetExtendedAgentCardMethod,
];

@Module({
  imports: [SessionModule, TasksModule, AgentModule, StreamingModule, CardModule, RpcModule],
  providers: [MessageIntake, StreamConnections, TaskStreamWriter, ...METHODS],
})
export class MethodsModule implements OnModuleInit {
  constructor(
    @Inject(ModuleRef) private readonly moduleRef: ModuleRef,
    @Inject(RpcPipeline) private readonly pipeline: RpcPipeline,
  ) {}

  onModuleInit(): void {
    for (const method of METHODS) this.pipeline.register(this.moduleRef.get(method));
  }
}
