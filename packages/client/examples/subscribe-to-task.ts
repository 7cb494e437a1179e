/** subscribeToTask: the rest of a live task, kept as one Task snapshot with applyStreamEvent. */
import { applyStreamEvent, MurmurClient, type Task } from '@murmur/client';

const client = new MurmurClient(process.argv[2]);
const started = await client.sendText('count to 5', { returnImmediately: true });
let task: Task = started;
for await (const event of client.subscribeToTask(started.id)) {
  if (event.kind !== 'connection') task = applyStreamEvent(task, event);
}
console.log(task.status.state, task.artifacts?.length ?? 0);
