import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Session-wide values the door keeps with its records, such as the key that seals ListTasks page tokens. */
@Entity({ name: 'door_meta' })
export class MetaRow {
  @PrimaryColumn({ type: 'text' })
  key!: string;

  @Column({ type: 'text' })
  value!: string;
}
