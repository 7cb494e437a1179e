import { CONTROL_PATH } from '@murmur/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * The control surface as the routes see it (docs/control.md): control/ implements it and start-door hands it in,
 * so rpc/ never imports it. It is reached at step 1, with its own token, before the door token.
 */
export interface ControlServer {
  /**
   * In onRequest, before the body is read: the token, the path and the method. Answers the request (the reply),
   * or admits a POST whose body is to be read, naming the token that was presented.
   */
  admit(request: FastifyRequest, reply: FastifyReply, pathname: string): FastifyReply | { tokenId: string };
  /** An admitted POST, with its body as text. */
  change(reply: FastifyReply, body: string, tokenId: string): FastifyReply;
}

/** /control and every path under it. */
export function isControlPath(pathname: string): boolean {
  return pathname === CONTROL_PATH || pathname.startsWith(`${CONTROL_PATH}/`);
}
