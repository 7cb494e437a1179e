import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { TraceWriter } from '../session/trace-writer.js';
import { SESSION_CONTEXT, type SessionContext } from '../session/session-context.js';
import { SessionModule } from '../session/session.module.js';
import { BackgroundCommands } from '../tools/background-commands.js';
import { ToolsModule } from '../tools/tools.module.js';
import { TaskEvents } from './task-events.js';
import { TaskService } from './task-service.js';
import { TaskStore } from './task-store.js';

@Module({
  imports: [SessionModule, ToolsModule],
  providers: [
    {
      provide: TaskStore,
      // Opening settles tasks a crash left live before the door may answer anything.
      useFactory: async (db: DataSource, trace: TraceWriter) => {
        const store = new TaskStore(db);
        const settled = await store.open(Date.now());
        for (const id of settled) trace.write('task_settled_on_reopen', { task_id: id, state: 'TASK_STATE_FAILED' });
        return store;
      },
      inject: [DataSource, TraceWriter],
    },
    { provide: TaskEvents, useFactory: () => new TaskEvents() },
    {
      provide: TaskService,
      useFactory: (s: SessionContext, store: TaskStore, events: TaskEvents, trace: TraceWriter, bg: BackgroundCommands) => new TaskService(s, store, events, trace, bg),
      inject: [SESSION_CONTEXT, TaskStore, TaskEvents, TraceWriter, BackgroundCommands],
    },
  ],
  exports: [TaskStore, TaskEvents, TaskService],
})
export class TasksModule {}
