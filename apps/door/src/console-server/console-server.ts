import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyInstance } from 'fastify';
import { CONSOLE_DOORS_PATH, type ConsoleDoorsResponse, consoleNotFoundRefusal, encodeRefusalBody, refusalStatus } from '@murmur/protocol';
import { NO_ROUTE_SCHEMAS } from '../common/no-route-schemas.js';
import type { DoorSettings } from '../config/settings.js';
import type { AddedDoor } from './added-doors.js';
import { ConsoleNotBuiltError } from './console-not-built-error.js';
import { DOOR_PROXY_PREFIX, registerDoorProxy } from './door-proxy.js';
import { registerFormationsApi } from './formations-api.js';
import { registerHostCheck } from './host-check.js';
import { registerRecordsApi } from './records-api.js';
import { registerRunningApi } from './running/running-api.js';
import { RunningNow } from './running/running-now.js';
import { registerSessionsApi } from './sessions-api.js';

/** The built console: MURMUR_CONSOLE_DIST, else apps/console/dist beside this package. */
function consoleDist(settings: Pick<DoorSettings, 'consoleDist'>): string {
  return settings.consoleDist ?? fileURLToPath(new URL('../../../../console/dist/', import.meta.url));
}

/**
 * `mur console`: the built console, the sessions API and the loopback door proxy (plus any added doors), on one origin;
 * the sessions are those registered and recorded under the settings' MURMUR_HOME.
 */
export async function startConsoleServer(options: {
  host: string;
  port: number;
  settings: DoorSettings;
  dist?: string;
  doors?: readonly AddedDoor[];
}): Promise<{ url: string; server: FastifyInstance }> {
  const { home } = options.settings;
  const root = path.resolve(options.dist ?? consoleDist(options.settings));
  if (!existsSync(path.join(root, 'index.html'))) {
    throw new ConsoleNotBuiltError(`the console is not built: no index.html in ${root}; run npm run build first`);
  }
  const server = Fastify({ logger: false, forceCloseConnections: true, schemaController: NO_ROUTE_SCHEMAS });
  // Bodies pass through the proxy untouched.
  registerHostCheck(server, options.host);
  server.removeAllContentTypeParsers();
  server.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 64 * 1024 * 1024 }, (_req, body, done) => done(null, body));
  registerSessionsApi(server, home);
  registerRecordsApi(server, home);
  const doors = options.doors ?? [];
  registerFormationsApi(server, home, doors);
  const running = new RunningNow({ home, added: doors });
  server.addHook('onClose', async () => running.close());
  registerRunningApi(server, running);
  server.get(CONSOLE_DOORS_PATH, async (_request, reply) => {
    const body: ConsoleDoorsResponse = { doors: doors.map(({ key, url, hasToken }) => ({ key, url, hasToken })) };
    return reply.header('cache-control', 'no-store').send(body);
  });
  registerDoorProxy(server, doors);
  await server.register(fastifyStatic, { root, prefix: '/', index: ['index.html'], cacheControl: false });
  server.setNotFoundHandler((request, reply) => {
    if (request.url.startsWith('/api/') && !request.url.startsWith(DOOR_PROXY_PREFIX)) {
      return reply
        .code(refusalStatus('not_found'))
        .header('content-type', 'application/json')
        .send(encodeRefusalBody(consoleNotFoundRefusal(request.url)));
    }
    return reply.sendFile('index.html');
  });
  await server.listen({ host: options.host, port: options.port });
  const address = server.server.address();
  if (address === null || typeof address === 'string') throw new Error('the console is not listening on a TCP port');
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return { url: `http://${host}:${address.port}`, server };
}
