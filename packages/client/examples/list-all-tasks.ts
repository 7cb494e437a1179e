/** listAllTasks: every task, page after page. */
import { MurmurClient, type TaskState } from '@murmur/client';

const client = new MurmurClient(process.argv[2]);
const counts = new Map<TaskState, number>();
for await (const task of client.listAllTasks()) counts.set(task.status.state, (counts.get(task.status.state) ?? 0) + 1);
console.log(Object.fromEntries(counts));
