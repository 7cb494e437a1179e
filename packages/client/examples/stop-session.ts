/** stopSession: cancels every live task and reports what the session leaves running. The door stays up. */
import { MurmurClient, type StopSessionResult } from '@murmur/client';

const client = new MurmurClient(process.argv[2], { token: process.env.MURMUR_TOKEN });
const result: StopSessionResult = await client.stopSession();
console.log(result.session_id, result.canceled, result.residue);
