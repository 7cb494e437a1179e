import { type DynamicModule, Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import path from 'node:path';
import { AgentModule } from './agent/agent.module.js';
import { AuthModule } from './auth/auth.module.js';
import { CardModule } from './card/card.module.js';
import { SHELL_BINARIES, type ShellBinaries } from './card/shell-binaries.js';
import { DOOR_SURFACE } from './door-surface.js';
import { Delegations } from './formations/delegations.js';
import { FormationsModule } from './formations/formations.module.js';
import { MemberCalls } from './formations/member-calls.js';
import { METHODS, MethodsModule } from './methods/methods.module.js';
import { COMPLETION_SINK } from './rpc/completion-sink.js';
import { RPC_METHODS, type RpcMethod } from './rpc/rpc-context.js';
import { RpcModule } from './rpc/rpc.module.js';
import { SESSION_CONTEXT, type SessionContext } from './session/session-context.js';
import { SessionModule } from './session/session.module.js';
import { StreamingModule } from './streaming/streaming.module.js';
import { MetaRow } from './tasks/meta.entity.js';
import { RESIDUE_SOURCES, type ResidueSource } from './tasks/residue-source.js';
import { quietSqlite3 } from './tasks/sqlite-driver.js';
import { TASK_ENDING_HOLDS, type TaskEndingHold } from './tasks/task-ending-hold.js';
import { TaskRow } from './tasks/task.entity.js';
import { TasksModule } from './tasks/tasks.module.js';
import { TelemetryModule } from './telemetry/telemetry.module.js';
import { Telemetry } from './telemetry/telemetry.js';
import { OUTBOUND_TRACING } from './egress/outbound-tracing.js';
import { BackgroundCommands } from './tools/background-commands.js';
import { ToolDispatcher } from './tools/tool-dispatcher.js';
import { ToolsModule } from './tools/tools.module.js';

/** The door for one session: its context is staged before Nest starts, and every module reads it. */
@Global()
@Module({})
export class AppModule {
  static forSession(session: SessionContext): DynamicModule {
    return {
      module: AppModule,
      imports: [
        TypeOrmModule.forRoot({
          type: 'sqlite',
          // sqlite3 without its verbose mode, which TypeORM would switch on (sqlite-driver.ts).
          driver: quietSqlite3,
          database: path.join(session.recordsDir, 'store.db'),
          entities: [TaskRow, MetaRow],
          synchronize: true,
          logging: false,
        }),
        SessionModule,
        FormationsModule,
        ToolsModule,
        AuthModule,
        TasksModule,
        TelemetryModule,
        CardModule,
        StreamingModule,
        RpcModule,
        AgentModule,
        MethodsModule,
      ],
      providers: [
        { provide: SESSION_CONTEXT, useValue: session },
        // The ports one floor's rooms read each other through (docs/architecture.md, "How the layers meet").
        // What a task's ending reports the session leaves running: background commands, and delegations when it may delegate.
        {
          provide: RESIDUE_SOURCES,
          useFactory: (background: BackgroundCommands, delegations: Delegations | null): ResidueSource[] =>
            delegations === null ? [background] : [background, delegations],
          inject: [BackgroundCommands, Delegations],
        },
        // What a task's ending waits for: a formation member's calls' offers on their way.
        { provide: TASK_ENDING_HOLDS, useFactory: (calls: MemberCalls | null): TaskEndingHold[] => (calls === null ? [] : [calls]), inject: [MemberCalls] },
        // The pipeline's methods (methods/) and where completions go (formations/: the delegations, or null).
        { provide: RPC_METHODS, useFactory: (...methods: RpcMethod[]): readonly RpcMethod[] => methods, inject: METHODS },
        { provide: COMPLETION_SINK, useExisting: Delegations },
        { provide: SHELL_BINARIES, useFactory: (tools: ToolDispatcher): ShellBinaries => tools.inventory, inject: [ToolDispatcher] },
        // The runtime tools' outbound requests get their client spans from telemetry/ (docs/telemetry.md).
        { provide: OUTBOUND_TRACING, useExisting: Telemetry },
        // What the door serves: planes, the record plane, the control surface, the fast lane and the routes (door-surface.ts).
        ...DOOR_SURFACE,
      ],
      exports: [SESSION_CONTEXT, RESIDUE_SOURCES, TASK_ENDING_HOLDS, RPC_METHODS, COMPLETION_SINK, SHELL_BINARIES, OUTBOUND_TRACING],
    };
  }
}
