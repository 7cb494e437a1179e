/** sendStreamingMessage: a new task streamed to its end (or its input request), with murmur's text frames. */
import { MurmurClient, textMessage } from '@murmur/client';

const client = new MurmurClient(process.argv[2]);
for await (const event of client.sendStreamingMessage({ message: textMessage('count to 5') }, { murmurFrames: true })) {
  if (event.kind === 'task' && event.resumed) continue; // a resumed connection's snapshot; the first one came already
  if (event.kind === 'frame' && event.frame.frame === 'text') process.stdout.write(event.frame.text);
  if (event.kind === 'status') console.log('\n', event.response.statusUpdate.status.state);
}
