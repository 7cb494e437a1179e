/** listTasks: one page, most recently changed first. */
import { type ListTasksResponse, MurmurClient } from '@murmur/client';

const client = new MurmurClient(process.argv[2]);
const page: ListTasksResponse = await client.listTasks({ pageSize: 10, status: 'TASK_STATE_COMPLETED' });
for (const task of page.tasks) console.log(task.id, task.status.state);
console.log('next page token:', page.nextPageToken || '(none)');
