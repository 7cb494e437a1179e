/** getCard: the public agent card, served without a token. Run: node dist/examples/get-card.js http://127.0.0.1:PORT */
import { type AgentCard, MurmurClient } from '@murmur/client';

const client = new MurmurClient(process.argv[2]);
const card: AgentCard = await client.getCard();
console.log(card.name, card.version, card.supportedInterfaces?.[0]?.url);
