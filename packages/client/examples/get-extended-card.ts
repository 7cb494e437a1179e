/** getExtendedCard: an authenticated door's card with the capsule extension; a public door refuses it. */
import { isA2AError, MurmurClient } from '@murmur/client';

const client = new MurmurClient(process.argv[2], { token: process.env.MURMUR_TOKEN });
try {
  const card = await client.getExtendedCard();
  console.log(card.capabilities?.extensions?.map((e) => e.uri));
} catch (error) {
  if (isA2AError(error, 'UnsupportedOperation')) console.log('a public door has no extended card');
  else throw error;
}
