import type { MurmurTaskMetadata, ResidueItem, TaskState } from '@murmur/protocol';
import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { TASK_COLUMN as C, type StoredTask } from '../records/task-table.js';

/**
 * One task of the session. `change` is the session's monotonic change counter: every state change or recorded
 * ending takes the next value, and ListTasks orders and pages on it.
 */
@Entity({ name: 'tasks' })
@Index('idx_tasks_change', ['change'], { unique: true })
@Index('idx_tasks_state_change', ['state', 'change'])
@Index('idx_tasks_context_change', ['contextId', 'change'])
@Index('idx_tasks_owner_change', ['owner', 'change'])
export class TaskRow implements StoredTask {
  @PrimaryColumn({ type: 'text', name: C.id })
  id!: string;

  @Column({ type: 'text', name: C.contextId })
  contextId!: string;

  @Column({ type: 'text', name: C.state })
  state!: TaskState;

  @Column({ type: 'integer', name: C.change })
  change!: number;

  @Column({ type: 'integer', name: C.statusTimestampMs })
  statusTimestampMs!: number;

  /** The final status message's text, on a terminal task that said something. */
  @Column({ type: 'text', name: C.statusText, nullable: true })
  statusText!: string | null;

  @Column({ type: 'text', name: C.response, nullable: true })
  response!: string | null;

  /** The question a TASK_STATE_INPUT_REQUIRED task waits on. */
  @Column({ type: 'text', name: C.prompt, nullable: true })
  prompt!: string | null;

  @Column({ type: 'simple-json', name: C.residue, nullable: true })
  residue!: ResidueItem[] | null;

  @Column({ type: 'simple-json', name: C.murmur, nullable: true })
  murmur!: MurmurTaskMetadata | null;

  /** Who started it: "session" for the runtime's own tasks, "public", "operator" or a credential name. */
  @Column({ type: 'text', name: C.owner })
  owner!: string;

  @Column({ type: 'text', name: C.messageId })
  messageId!: string;

  @Column({ type: 'integer', name: C.createdAtMs })
  createdAtMs!: number;
}
