import { Module } from '@nestjs/common';
import { TaskEvents } from '../tasks/task-events.js';
import { TaskStore } from '../tasks/task-store.js';
import { TasksModule } from '../tasks/tasks.module.js';
import { StalledReaders } from './stalled-readers.js';
import { StreamHub } from './stream-hub.js';

/** The session's stream: event ids, the replay buffer and fan-out to connections. The methods that write it are in methods/. */
@Module({
  imports: [TasksModule],
  providers: [
    { provide: StalledReaders, useFactory: () => new StalledReaders() },
    { provide: StreamHub, useFactory: (store: TaskStore, events: TaskEvents) => new StreamHub(store, events), inject: [TaskStore, TaskEvents] },
  ],
  exports: [StreamHub, StalledReaders],
})
export class StreamingModule {}
