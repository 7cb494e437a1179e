/** listTaskPages: every page of a ListTasks walk. */
import { MurmurClient } from '@murmur/client';

const client = new MurmurClient(process.argv[2]);
let pages = 0;
for await (const page of client.listTaskPages({ pageSize: 50 })) pages += page.tasks.length > 0 ? 1 : 0;
console.log('pages:', pages);
