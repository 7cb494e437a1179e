/**
 * The floor: a bare node:http server in its own process, answering POST / with a JSON-RPC success that echoes the
 * request id around the result given in BENCH_RAW_RESULT — the least any HTTP JSON-RPC server on Node does (read the
 * body, parse it, stringify the answer, write it). It prints its URL, then serves until SIGTERM.
 */
import http from 'node:http';

const result: unknown = JSON.parse(process.env.BENCH_RAW_RESULT ?? '{}');

const server = http.createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    let id: unknown = null;
    try {
      const body: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (typeof body === 'object' && body !== null && 'id' in body) id = body.id;
    } catch {
      // Not JSON: answered with id null, as the other references do.
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ jsonrpc: '2.0', id, result }));
  });
});

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('node:http did not listen on a TCP port');
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${address.port}`, pid: process.pid })}\n`);
});
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
