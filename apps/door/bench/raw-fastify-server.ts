/**
 * The baseline: a bare Fastify app (the version apps/door depends on) in its own process, answering POST / with a
 * JSON-RPC success that echoes the request id around the result given in BENCH_RAW_RESULT. It prints its URL, then
 * serves until SIGTERM.
 */
import Fastify from 'fastify';

const result: unknown = JSON.parse(process.env.BENCH_RAW_RESULT ?? '{}');
const app = Fastify({ logger: false });

app.post('/', async (request) => {
  const body = request.body;
  const id = typeof body === 'object' && body !== null && 'id' in body ? body.id : null;
  return { jsonrpc: '2.0', id, result };
});

const url = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`${JSON.stringify({ url, pid: process.pid })}\n`);
process.once('SIGTERM', () => {
  void app.close().then(() => process.exit(0));
});
