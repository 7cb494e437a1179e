/** sendText: a new task from one line of text, answered when it settles. */
import { ARTIFACT_ID, MurmurClient, partsText } from '@murmur/client';

const client = new MurmurClient(process.argv[2]);
const task = await client.sendText('What is 2+2?');
console.log(task.status.state, partsText(task.artifacts?.find((a) => a.artifactId === ARTIFACT_ID.response)?.parts));
