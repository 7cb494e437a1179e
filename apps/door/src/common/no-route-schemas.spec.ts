import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import { NO_ROUTE_SCHEMAS } from './no-route-schemas.js';

test('a server given NO_ROUTE_SCHEMAS answers its routes that declare no schema', async () => {
  const server = Fastify({ logger: false, schemaController: NO_ROUTE_SCHEMAS });
  server.get('/plain', async () => ({ ok: true }));
  const answer = await server.inject({ method: 'GET', url: '/plain' });
  assert.equal(answer.statusCode, 200);
  assert.deepEqual(answer.json(), { ok: true });
  await server.close();
});

test('a route that declares a JSON Schema fails to register, naming why, rather than loading a compiler', async () => {
  const server = Fastify({ logger: false, schemaController: NO_ROUTE_SCHEMAS });
  server.post('/typed', { schema: { body: { type: 'object' } } }, async () => ({ ok: true }));
  await assert.rejects(async () => {
    await server.ready();
  }, /this server's routes declare no JSON Schema: they read their bodies themselves/);
  await server.close();
});
