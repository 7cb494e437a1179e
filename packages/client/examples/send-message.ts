/** sendMessage: the raw SendMessage request, answered with a task (or a message). */
import { MurmurClient, type SendMessageResponse, textMessage } from '@murmur/client';

const client = new MurmurClient(process.argv[2]);
const answer: SendMessageResponse = await client.sendMessage({ message: textMessage('What is 2+2?'), configuration: { returnImmediately: true } });
if ('task' in answer) console.log(answer.task.id, answer.task.status.state);
