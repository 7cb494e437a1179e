/** reply: answers a task waiting in TASK_STATE_INPUT_REQUIRED. */
import { ARTIFACT_ID, MurmurClient, partsText } from '@murmur/client';

const client = new MurmurClient(process.argv[2]);
let task = await client.sendText('Deploy the service');
if (task.status.state === 'TASK_STATE_INPUT_REQUIRED') {
  console.log('asks:', partsText(task.artifacts?.find((a) => a.artifactId === ARTIFACT_ID.prompt)?.parts));
  task = await client.reply(task.id, 'main');
}
console.log(task.status.state);
