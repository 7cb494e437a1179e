/**
 * A fake provider as a process, for demos and for the end-to-end suite (e2e/tests/harness.spec.ts), which runs it
 * rather than importing the door's tests: `node dist/test/support/fake-providers/main.js openai|responses|anthropic
 * [--port N] [--transcript replies.json] [--harness claude-code|codex] [--expect-key KEY] [--rate-limits]`. Prints its
 * base URL (the origin for anthropic, `…/v1` for the others). It answers
 *
 * - with `--harness`: as the harness tests' scripted model does (support/harness-model.ts: `[[bash:<command>]]` runs
 *   the command with the harness's own shell tool, anything else is answered `answer to: <the prompt>`);
 * - otherwise: the transcript's replies in order (FakeReply JSON), then a short text answer to every request.
 *
 * `--expect-key` refuses any other key 401 (quoting it, as OpenAI does); `--rate-limits` adds the provider's rate-limit
 * window headers to every answer, which a harness reports as quota windows.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { anthropicWindowHeaders, claudeModel, codexModel, codexWindowHeaders } from '../harness-model.js';
import { FakeProvider } from './fake-provider.js';
import type { FakeReply } from './fake-turn.js';

const USAGE =
  'usage: main.js openai|responses|anthropic [--port N] [--transcript replies.json] [--harness claude-code|codex] [--expect-key KEY] [--rate-limits]\n';
const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    port: { type: 'string', default: '0' },
    transcript: { type: 'string' },
    harness: { type: 'string' },
    'expect-key': { type: 'string' },
    'rate-limits': { type: 'boolean', default: false },
  },
});
const kind = positionals[0];
const harness = values.harness;
const fits = harness === undefined || (harness === 'claude-code' && kind === 'anthropic') || (harness === 'codex' && kind === 'responses');
if ((kind !== 'openai' && kind !== 'responses' && kind !== 'anthropic') || !fits) {
  process.stderr.write(`${USAGE}(--harness claude-code speaks anthropic, --harness codex responses)\n`);
  process.exit(2);
}
const respond = harness === 'claude-code' ? claudeModel : harness === 'codex' ? codexModel : undefined;
const headers = values['rate-limits'] ? (kind === 'anthropic' ? anthropicWindowHeaders() : codexWindowHeaders()) : undefined;
const fake = new FakeProvider(kind, {
  fallback: { text: ['Hello ', 'from the ', 'fake provider.'], usage: { input: 12, output: 5 }, paceMs: 40 },
  ...(respond ? { respond } : {}),
  ...(values['expect-key'] !== undefined ? { expectKey: values['expect-key'] } : {}),
  ...(headers ? { headers } : {}),
});
if (values.transcript) fake.enqueue(...(JSON.parse(readFileSync(values.transcript, 'utf8')) as FakeReply[]));
await fake.start(Number(values.port));
process.stdout.write(`${fake.baseUrl}\n`);
