import { Module, type Type } from '@nestjs/common';
import { AgentModule } from '../agent/agent.module.js';
import { CardModule } from '../card/card.module.js';
import type { RpcMethod } from '../rpc/rpc-context.js';
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
 * Every method handler the door has. Adding a method is a class implementing RpcMethod and a line here: app.module.ts
 * hands them to the pipeline (RPC_METHODS), which serves each under its own name when the card lists it.
 */
export const METHODS: Type<RpcMethod>[] = [
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
  imports: [SessionModule, TasksModule, AgentModule, StreamingModule, CardModule],
  providers: [MessageIntake, StreamConnections, TaskStreamWriter, ...METHODS],
  exports: METHODS,
})
export class MethodsModule {}
