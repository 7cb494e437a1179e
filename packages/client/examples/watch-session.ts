/** watchSession: every task's events and murmur's frames until the capsule closes. */
import { errorKind, MurmurClient } from '@murmur/client';

const client = new MurmurClient(process.argv[2], { reconnect: { maxRetries: 5, healthyAfterMs: 5000 } });
try {
  for await (const event of client.watchSession()) {
    if (event.kind === 'connection') console.log('connection', event.state, event.attempt);
    else if (event.kind === 'frame') console.log(event.taskId ?? '-', event.frame.frame);
    else console.log(event.taskId ?? '-', event.kind);
  }
} catch (error) {
  console.log('watch ended:', errorKind(error), (error as Error).message);
}
