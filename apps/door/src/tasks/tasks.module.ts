import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SessionModule } from '../session/session.module.js';
import { TraceWriter } from '../records/trace-writer.js';
import { PageTokens } from './page-tokens.js';
import { RESIDUE_SOURCES, type ResidueSource } from './residue-source.js';
import { TASK_ENDING_HOLDS, type TaskEndingHold } from './task-ending-hold.js';
import { TaskEvents } from './task-events.js';
import { TaskLifecycle } from './task-lifecycle.js';
import { TaskStore } from './task-store.js';

/**
 * The session's tasks: the durable store, the events every transition reports, and the lifecycle. The run queue is
 * provided where its runner is known (AgentModule), so this module never reaches up to the agent; the residue
 * sources (RESIDUE_SOURCES) and what a task's ending waits for (TASK_ENDING_HOLDS) are bound in the composition root
 * (app.module.ts), so it never reaches across to tools/ or up to formations/.
 */
@Module({
  imports: [SessionModule],
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
    { provide: PageTokens, useFactory: (store: TaskStore) => PageTokens.open(store), inject: [TaskStore] },
    { provide: TaskEvents, useFactory: () => new TaskEvents() },
    {
      provide: TaskLifecycle,
      useFactory: (store: TaskStore, events: TaskEvents, trace: TraceWriter, residue: ResidueSource[], endingHolds: TaskEndingHold[]) =>
        new TaskLifecycle({ store, events, trace, residue, endingHolds }),
      inject: [TaskStore, TaskEvents, TraceWriter, RESIDUE_SOURCES, TASK_ENDING_HOLDS],
    },
  ],
  exports: [TaskStore, TaskEvents, TaskLifecycle, PageTokens],
})
export class TasksModule {}
