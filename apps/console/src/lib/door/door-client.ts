/** The part of MurmurClient the console's managers call, so tests can hand them a fake door. */
import type { MurmurClient } from '@murmur/client';

export type DoorClient = Pick<
  MurmurClient,
  'address' | 'getCard' | 'getExtendedCard' | 'getTask' | 'listTasks' | 'cancelTask' | 'reply' | 'sendText' | 'stopSession' | 'subscribeToTask' | 'watchSession'
>;
