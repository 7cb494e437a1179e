/** getTask: one task as the store has it; a task the caller does not see is TaskNotFound. */
import { isA2AError, MurmurClient, type Task } from '@murmur/client';

const client = new MurmurClient(process.argv[2]);
const started = await client.sendText('What is 2+2?', { returnImmediately: true });
const task: Task = await client.getTask(started.id);
console.log(task.id, task.status.state);
await client.getTask('tsk_00000000000000000000000000000000').catch((error: unknown) => console.log(isA2AError(error, 'TaskNotFound')));
