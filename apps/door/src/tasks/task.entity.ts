import type { MurmurTaskMetadata, ResidueItem, TaskState } from '@murmur/protocol';
import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * One task of the session. `change` is the session's monotonic change counter: every state change or recorded
 * ending takes the next value, and ListTasks orders and pages on it.
 */
@Entity({ name: 'tasks' })
@Index('idx_tasks_change', ['change'], { unique: true })
@Index('idx_tasks_state_change', ['state', 'change'])
@Index('idx_tasks_context_change', ['contextId', 'change'])
@Index('idx_tasks_owner_change', ['owner', 'change'])
export class TaskRow {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text', name: 'context_id' })
  contextId!: string;

  @Column({ type: 'text' })
  state!: TaskState;

  @Column({ type: 'integer' })
  change!: number;

  @Column({ type: 'integer', name: 'status_ts_ms' })
  statusTimestampMs!: number;

  /** The final status message's text, on a terminal task that said something. */
  @Column({ type: 'text', name: 'status_text', nullable: true })
  statusText!: string | null;

  @Column({ type: 'text', nullable: true })
  response!: string | null;

  /** The question a TASK_STATE_INPUT_REQUIRED task waits on. */
  @Column({ type: 'text', nullable: true })
  prompt!: string | null;

  @Column({ type: 'simple-json', nullable: true })
  residue!: ResidueItem[] | null;

  @Column({ type: 'simple-json', nullable: true })
  murmur!: MurmurTaskMetadata | null;

  /** Who started it: "session" for the runtime's own tasks, "public", "operator" or a credential name. */
  @Column({ type: 'text' })
  owner!: string;

  @Column({ type: 'text', name: 'message_id' })
  messageId!: string;

  @Column({ type: 'integer', name: 'created_at_ms' })
  createdAtMs!: number;
}
