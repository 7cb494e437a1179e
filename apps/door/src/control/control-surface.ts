import {
  CONTROL_ALLOW,
  CONTROL_PATH,
  CONTROL_SETTINGS,
  type ControlChange,
  type ControlSettings,
  controlChallenge,
  controlInvalidTokenRefusal,
  controlMethodNotAllowedRefusal,
  controlNotFoundRefusal,
  controlRefusedRefusal,
  controlUnauthenticatedRefusal,
  encodeRefusalBody,
  type HttpRefusalBody,
  invalidControlRequestRefusal,
  isPlainObject,
  noInferenceRefusal,
  readRequestHeaders,
  refusalStatus,
  unknownSettingRefusal,
} from '@murmur/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ControlGate } from '../auth/control-token.js';
import type { TraceWriter } from '../records/trace-writer.js';
import type { ControlServer } from '../rpc/control-server.js';
import type { SessionContext } from '../session/session-context.js';
import { type DriverSelection, switchResult } from '../tools/runtime/index.js';

const JSON_TYPE = 'application/json';

function isJsonContentType(value: string | undefined): boolean {
  return value !== undefined && value.split(';')[0].trim().toLowerCase() === JSON_TYPE;
}

/**
 * The control surface (docs/control.md): GET /control reads the settings it changes, POST /control changes one.
 * Its token is its own (auth/control-token.ts); a change is switch-driver's switch with the operator as principal,
 * recorded with the token's id.
 */
export class ControlSurface implements ControlServer {
  constructor(private readonly deps: { session: SessionContext; gate: ControlGate; drivers: DriverSelection; trace: TraceWriter }) {}

  admit(request: FastifyRequest, reply: FastifyReply, pathname: string): FastifyReply | { tokenId: string } {
    const realm = this.deps.session.manifest.name;
    const verdict = this.deps.gate.check(readRequestHeaders(request.raw.rawHeaders));
    if (!verdict.ok) {
      if (verdict.why === 'none') return send(reply.header('www-authenticate', controlChallenge(realm, false)), controlUnauthenticatedRefusal());
      return send(reply.header('www-authenticate', controlChallenge(realm, true)), controlInvalidTokenRefusal(verdict.why));
    }
    if (pathname !== CONTROL_PATH) return send(reply, controlNotFoundRefusal());
    switch (request.method) {
      case 'GET':
      case 'HEAD':
        return reply
          .code(200)
          .header('content-type', JSON_TYPE)
          .send(Buffer.from(JSON.stringify(this.settings())));
      case 'POST':
        if (!isJsonContentType(request.headers['content-type'])) return send(reply, invalidControlRequestRefusal('content-type'));
        // One canonical spelling for the body parser, as the door's POST / does.
        request.raw.headers['content-type'] = JSON_TYPE;
        return { tokenId: verdict.tokenId };
      default:
        return send(reply.header('allow', CONTROL_ALLOW), controlMethodNotAllowedRefusal(request.method));
    }
  }

  change(reply: FastifyReply, body: string, tokenId: string): FastifyReply {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return send(reply, invalidControlRequestRefusal('not-json'));
    }
    if (!isPlainObject(parsed) || typeof parsed.setting !== 'string' || typeof parsed.value !== 'string') {
      return send(reply, invalidControlRequestRefusal('shape'));
    }
    const { setting, value } = parsed;
    const refuse = (refusal: HttpRefusalBody) => {
      this.deps.trace.write('control_refused', { principal: 'operator', token_id: tokenId, setting, value, reason: refusal.message });
      return send(reply, refusal);
    };
    if (!(CONTROL_SETTINGS as readonly string[]).includes(setting)) return refuse(unknownSettingRefusal(setting));
    const drivers = this.deps.drivers;
    if (drivers.current === null) return refuse(noInferenceRefusal());
    const outcome = drivers.switchTo(value, { principal: 'operator', tokenId });
    if (!outcome.switched) return refuse(controlRefusedRefusal(outcome.reason));
    const { from, to } = outcome;
    this.deps.trace.write('control_change', { principal: 'operator', token_id: tokenId, setting, from: from.name, to: to.name });
    const answer: ControlChange = { setting: 'inference.driver', from: from.name, to: to.name, message: switchResult(from, to) };
    return reply
      .code(200)
      .header('content-type', JSON_TYPE)
      .send(Buffer.from(JSON.stringify(answer)));
  }

  private settings(): ControlSettings {
    const drivers = this.deps.drivers;
    const current = drivers.current;
    if (current === null) return { sessionId: this.deps.session.sessionId, settings: [] };
    const choices = [...drivers.choices.values()].map((choice) => {
      const problem = drivers.problemOf(choice);
      return {
        name: choice.name,
        driver: choice.driver,
        ...(choice.driver === 'script' ? {} : { model: choice.model }),
        usable: problem === null,
        ...(problem === null ? {} : { problem }),
      };
    });
    return { sessionId: this.deps.session.sessionId, settings: [{ setting: 'inference.driver', value: current.name, choices }] };
  }
}

function send(reply: FastifyReply, body: HttpRefusalBody): FastifyReply {
  return reply
    .code(refusalStatus(body.error))
    .header('content-type', JSON_TYPE)
    .send(Buffer.from(encodeRefusalBody(body)));
}
