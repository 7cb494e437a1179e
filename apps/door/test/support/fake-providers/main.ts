/**
 * A fake provider for demos: `node dist/test/support/fake-providers/main.js openai|responses|anthropic [--port N]
 * [--transcript replies.json]`. Prints its base URL; plays the transcript's replies in order (FakeReply JSON), then
 * a short text answer to every request.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { FakeProvider } from './fake-provider.js';
import type { FakeReply } from './fake-turn.js';

const { positionals, values } = parseArgs({ allowPositionals: true, options: { port: { type: 'string', default: '0' }, transcript: { type: 'string' } } });
const kind = positionals[0];
if (kind !== 'openai' && kind !== 'responses' && kind !== 'anthropic') {
  process.stderr.write('usage: main.js openai|responses|anthropic [--port N] [--transcript replies.json]\n');
  process.exit(2);
}
const fake = new FakeProvider(kind, { fallback: { text: ['Hello ', 'from the ', 'fake provider.'], usage: { input: 12, output: 5 }, paceMs: 40 } });
if (values.transcript) fake.enqueue(...(JSON.parse(readFileSync(values.transcript, 'utf8')) as FakeReply[]));
await fake.start(Number(values.port));
process.stdout.write(`${fake.baseUrl}\n`);
