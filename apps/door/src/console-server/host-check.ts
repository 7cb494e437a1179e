import { isIP } from 'node:net';
import { encodeRefusalBody, misdirectedRefusal, refusalStatus, unbracketHost } from '@murmur/protocol';
import type { FastifyInstance } from 'fastify';

/**
 * Whether a request's Host names this machine for mur console: an IP address, `localhost`, or the name `--host` gave.
 * A page of another site can make its own name resolve to 127.0.0.1 (DNS rebinding) and then read whatever answers
 * there as its own origin; its requests still carry that name, so they are refused (421 misdirected) before anything
 * is read or proxied (docs/cli.md, "mur console").
 */
function addressedHere(host: string | undefined, listenHost: string): boolean {
  if (host === undefined) return true; // HTTP/1.0 names none; no browser sends such a request
  let hostname: string;
  try {
    hostname = new URL(`http://${host}`).hostname;
  } catch {
    return false;
  }
  const name = unbracketHost(hostname);
  return isIP(name) !== 0 || name === 'localhost' || (isIP(listenHost) === 0 && name === listenHost.toLowerCase());
}

/** Refuses, before every route, a request addressedHere does not admit. */
export function registerHostCheck(server: FastifyInstance, listenHost: string): void {
  server.addHook('onRequest', (request, reply, done) => {
    const host = request.headers.host;
    if (addressedHere(host, listenHost)) return done();
    reply
      .code(refusalStatus('misdirected'))
      .header('content-type', 'application/json')
      .header('connection', 'close')
      .send(encodeRefusalBody(misdirectedRefusal(host ?? '')));
  });
}
