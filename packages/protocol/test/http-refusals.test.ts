import assert from 'node:assert/strict';
import test from 'node:test';
import {
  badAddressRefusal,
  bearerChallenge,
  consoleNotFoundRefusal,
  doorNotFoundRefusal,
  doorUnreachableRefusal,
  encodeRefusalBody,
  HTTP_REFUSALS,
  type HttpRefusalBody,
  type HttpRefusalCode,
  insufficientScopeRefusal,
  invalidTokenRefusal,
  notLoopbackPeerRefusal,
  misdirectedRefusal,
  notLoopbackRefusal,
  peerNotAcceptedRefusal,
  planeNotServedRefusal,
  refusalStatus,
  unauthenticatedRefusal,
} from '../src/index.js';
import { isHttpRefusalCode } from '../src/http-refusals.js';

test('every row is keyed by its own code, with the status seed 000 and mur console answer', () => {
  const statuses: Record<HttpRefusalCode, number> = {
    unauthenticated: 401,
    invalid_token: 401,
    peer_not_accepted: 403,
    insufficient_scope: 403,
    not_found: 404,
    plane_not_served: 404,
    file_not_found: 404,
    handle_not_found: 404,
    method_not_allowed: 405,
    range_not_satisfiable: 416,
    invalid_request: 400,
    setting_not_controllable: 422,
    control_refused: 422,
    bad_address: 400,
    not_loopback: 403,
    door_unreachable: 502,
    misdirected: 421,
  };
  for (const [code, row] of Object.entries(HTTP_REFUSALS)) {
    assert.equal(row.code, code);
    assert.equal(refusalStatus(row.code), statuses[row.code]);
  }
  assert.equal(Object.keys(HTTP_REFUSALS).length, Object.keys(statuses).length);
  assert.equal(isHttpRefusalCode('invalid_token'), true);
  assert.equal(isHttpRefusalCode('toString'), false);
  assert.equal(isHttpRefusalCode(401), false);
});

test('the bodies are byte-identical to what the door and mur console have always answered', () => {
  const wire = (body: HttpRefusalBody) => encodeRefusalBody(body);
  assert.equal(
    wire(unauthenticatedRefusal()),
    '{"error":"unauthenticated","message":"this door needs a bearer token: send Authorization: Bearer <token> (mur token prints them)"}',
  );
  assert.equal(wire(invalidTokenRefusal('several-headers')), '{"error":"invalid_token","message":"send one Authorization header, not several"}');
  assert.equal(wire(invalidTokenRefusal('not-bearer')), '{"error":"invalid_token","message":"the Authorization header must be Bearer <token>"}');
  assert.equal(
    wire(invalidTokenRefusal('unknown-token')),
    '{"error":"invalid_token","message":"this token was not minted by this session, or the session has been restarted since"}',
  );
  assert.equal(
    wire(peerNotAcceptedRefusal()),
    '{"error":"peer_not_accepted","message":"this capsule does not accept tasks from peer capsules: it does not declare exports.peer_tasks.accept"}',
  );
  assert.equal(
    wire(insufficientScopeRefusal('watcher', 'SendMessage')),
    `{"error":"insufficient_scope","message":"credential 'watcher' does not reach SendMessage"}`,
  );
  assert.equal(
    wire(doorNotFoundRefusal()),
    '{"error":"not_found","message":"this door answers POST / with content-type: application/json and a JSON-RPC body, and GET /.well-known/agent-card.json"}',
  );
  assert.equal(
    wire(planeNotServedRefusal('files', false)),
    '{"error":"plane_not_served","message":"this capsule does not declare exports.files, so the operator plane at /resources/files serves nothing"}',
  );
  assert.equal(
    wire(planeNotServedRefusal('peer_files', true)),
    '{"error":"plane_not_served","message":"the peer plane at /resources/peer is declared (exports.peer_files) but this runtime does not serve planes yet"}',
  );
  assert.equal(wire(consoleNotFoundRefusal('/api/nope')), '{"error":"not_found","message":"no console API at /api/nope"}');
  assert.equal(wire(badAddressRefusal()), '{"error":"bad_address","message":"the door address must be host:port, such as 127.0.0.1:41873"}');
  assert.equal(
    wire(notLoopbackRefusal('10.0.0.1')),
    `{"error":"not_loopback","message":"the console only reaches doors on this machine's loopback, not 10.0.0.1"}`,
  );
  assert.equal(
    wire(notLoopbackPeerRefusal('10.0.0.1')),
    `{"error":"not_loopback","message":"mur console reads this machine's records and formations for a loopback peer only, not for 10.0.0.1"}`,
  );
  assert.equal(
    wire(doorUnreachableRefusal('127.0.0.1:9', 'connect ECONNREFUSED 127.0.0.1:9')),
    '{"error":"door_unreachable","message":"cannot reach the door at 127.0.0.1:9: connect ECONNREFUSED 127.0.0.1:9"}',
  );
  assert.equal(
    wire(misdirectedRefusal('rebind.example.test:7000')),
    '{"error":"misdirected","message":"mur console answers requests addressed to this machine by an IP address or localhost (or its --host), not to rebind.example.test:7000"}',
  );
  // Key order on the wire is error, then message, whatever order the object was built in.
  assert.equal(encodeRefusalBody({ message: 'm', error: 'not_found' } as HttpRefusalBody), '{"error":"not_found","message":"m"}');
});

test('peer_not_accepted is the same body every time', () => {
  assert.equal(encodeRefusalBody(peerNotAcceptedRefusal()), encodeRefusalBody(peerNotAcceptedRefusal()));
});

test('the www-authenticate challenges are the seed table', () => {
  assert.equal(bearerChallenge('hello'), 'Bearer realm="hello"');
  assert.equal(bearerChallenge('hello', { code: 'invalid_token' }), 'Bearer realm="hello", error="invalid_token"');
  assert.equal(
    bearerChallenge('hello', { code: 'insufficient_scope', scope: 'SendMessage' }),
    'Bearer realm="hello", error="insufficient_scope", scope="SendMessage"',
  );
});
