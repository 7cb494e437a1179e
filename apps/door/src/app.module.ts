import { type DynamicModule, Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import path from 'node:path';
import { AgentModule } from './agent/agent.module.js';
import { AuthModule } from './auth/auth.module.js';
import { CardModule } from './card/card.module.js';
import { SHELL_BINARIES, type ShellBinaries } from './card/shell-binaries.js';
import { FormationsModule } from './formations/formations.module.js';
import { MethodsModule } from './methods/methods.module.js';
import { RpcModule } from './rpc/rpc.module.js';
import { SESSION_CONTEXT, type SessionContext } from './session/session-context.js';
import { SessionModule } from './session/session.module.js';
import { StreamingModule } from './streaming/streaming.module.js';
import { MetaRow } from './tasks/meta.entity.js';
import { RESIDUE_SOURCES, type ResidueSource } from './tasks/residue-source.js';
import { quietSqlite3 } from './tasks/sqlite-driver.js';
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
        // What a task's ending reports the session leaves running: background commands; formations/ adds its delegations on init.
        { provide: RESIDUE_SOURCES, useFactory: (background: BackgroundCommands): ResidueSource[] => [background], inject: [BackgroundCommands] },
        { provide: SHELL_BINARIES, useFactory: (tools: ToolDispatcher): ShellBinaries => tools.inventory, inject: [ToolDispatcher] },
        // The runtime tools' outbound requests get their client spans from telemetry/ (docs/telemetry.md).
        { provide: OUTBOUND_TRACING, useExisting: Telemetry },
      ],
      exports: [SESSION_CONTEXT, RESIDUE_SOURCES, SHELL_BINARIES, OUTBOUND_TRACING],
    };
  }
}
