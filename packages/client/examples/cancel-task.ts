/** cancelTask: cancels a live task; an ended one is TaskNotCancelable, naming how it ended. */
import { isA2AError, MurmurClient } from '@murmur/client';

const client = new MurmurClient(process.argv[2]);
const task = await client.sendText('sleep', { returnImmediately: true });
try {
  const canceled = await client.cancelTask(task.id);
  console.log(canceled.status.state);
} catch (error) {
  if (isA2AError(error, 'TaskNotCancelable')) console.log('already', error.metadata.state);
  else throw error;
}
