/**
 * The cards of an authenticated door (seed 000, "The public card of an authenticated door" and "The extended
 * card"): the public card deep-equals the seed's example, GetExtendedAgentCard adds the capsule extension between
 * the door and stream extensions, a public door has no extended card; and every card parses strictly as
 * lf.a2a.v1.AgentCard against the A2A v1.0.1 descriptor.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  as,
  assertRpcError,
  assertRpcResult,
  CAPSULE_EXTENSION_URI,
  CARD_PATH,
  call,
  DOOR_EXTENSION_URI,
  raw,
  STREAM_EXTENSION_URI,
  tokensOf,
} from './support/auth.js';
import { type DoorProcess, makeCapsule, runDoor } from './support/door-process.js';
import { SEED_AUTHENTICATED_CARD, SEED_PUBLIC_CARD } from './support/seed-cards.js';
import { parseStrict, strictSkip } from './support/strict-a2a.js';

const SCRIPT = 'default:\n  turns:\n    - answer: "ok"\n';

/** my-agent 0.1.0 as the seed describes it: single, bash, shell and network granted, exports.files declared. */
function myAgent(opts: { authenticated: boolean; acceptance?: 'single' | 'none' }): string {
  const lines = [
    'name: my-agent',
    'version: 0.1.0',
    'lifecycle:',
    `  task_acceptance: ${opts.acceptance ?? 'single'}`,
    ...(opts.acceptance === 'none' ? [] : ['inference:', '  driver: script', '  script: script.yaml']),
    'capabilities:',
    '  shell:',
    '    allow: [bash]',
    '  network:',
    '    allow: [api.example.com]',
    'exports:',
    '  files:',
    "    root: '.'",
  ];
  if (opts.authenticated) {
    lines.push('network:', '  authentication:', '    scheme: bearer', '    credentials:', '      watcher:', '        scopes: [GetTask, ListTasks]');
  }
  return `${lines.join('\n')}\n`;
}

// biome-ignore lint/suspicious/noExplicitAny: cards are compared as plain JSON
type Json = any;

/** A seed card with the door's address, name and version, and the session id substituted. */
function expected(seedText: string, door: DoorProcess): Json {
  const card = JSON.parse(seedText);
  card.supportedInterfaces[0].url = door.url;
  card.name = door.name;
  card.version = door.version;
  card.description = `Murmur capsule ${door.name} ${door.version}`;
  for (const ext of card.capabilities.extensions) if (ext.uri === CAPSULE_EXTENSION_URI) ext.params.sessionId = door.sessionId;
  return card;
}

/** The seed's capsule extension, with this door's session id. */
function capsuleExtension(door: DoorProcess): Json {
  const ext = JSON.parse(SEED_PUBLIC_CARD).capabilities.extensions[1];
  assert.equal(ext.uri, CAPSULE_EXTENSION_URI);
  ext.params.sessionId = door.sessionId;
  return ext;
}

async function getCard(door: DoorProcess, headers: Record<string, string> = {}): Promise<Json> {
  const answer = await raw(door.url, { method: 'GET', path: CARD_PATH, headers });
  assert.equal(answer.status, 200, answer.text);
  return answer.json;
}

let authed: DoorProcess;
let publicDoor: DoorProcess;
let authedNone: DoorProcess;
let tokens: Record<string, string>;

before(async () => {
  [authed, publicDoor, authedNone] = await Promise.all([
    runDoor(makeCapsule(myAgent({ authenticated: true }), SCRIPT)),
    runDoor(makeCapsule(myAgent({ authenticated: false }), SCRIPT)),
    runDoor(makeCapsule(myAgent({ authenticated: true, acceptance: 'none' }))),
  ]);
  tokens = tokensOf(authed);
});
after(async () => {
  await Promise.all([authed?.stop(), publicDoor?.stop(), authedNone?.stop()]);
});

describe('the public card of an authenticated door', () => {
  test("deep-equals the seed's example, with this door's url, name and version", async () => {
    const card = await getCard(authed);
    assert.deepEqual(card, expected(SEED_AUTHENTICATED_CARD, authed));
  });

  test('the parts the seed names: no capsule extension, GetExtendedAgentCard last, bearer scheme, skill requirements in order', async () => {
    const card = await getCard(authed);
    assert.equal(card.capabilities.streaming, true);
    assert.equal(card.capabilities.extendedAgentCard, true);
    assert.deepEqual(
      card.capabilities.extensions.map((e: Json) => e.uri),
      [DOOR_EXTENSION_URI, STREAM_EXTENSION_URI],
    );
    assert.equal(JSON.stringify(card).includes(authed.sessionId), false, 'the session id is extended-card material');
    assert.equal(card.capabilities.extensions[0].params.methods.at(-1), 'GetExtendedAgentCard');
    assert.deepEqual(Object.keys(card.securitySchemes), ['bearer']);
    assert.equal(card.securitySchemes.bearer.httpAuthSecurityScheme.scheme, 'Bearer');
    assert.deepEqual(card.securityRequirements, [{ schemes: { bearer: { list: [] } } }]);
    assert.deepEqual(
      card.skills[0].securityRequirements.map((r: Json) => r.schemes.bearer.list),
      [['SendMessage'], ['SendStreamingMessage']],
    );
  });

  test('is the same card whatever Authorization the GET carries', async () => {
    const plain = await getCard(authed);
    assert.deepEqual(await getCard(authed, { authorization: `Bearer ${tokens.operator}` }), plain);
    assert.deepEqual(await getCard(authed, { authorization: 'Bearer nope' }), plain);
  });

  test('under task_acceptance: none: the five methods then GetExtendedAgentCard, no streaming, no skills', async () => {
    const card = await getCard(authedNone);
    assert.deepEqual(card.capabilities.extensions[0].params.methods, [
      'murmur.WatchSession',
      'GetTask',
      'ListTasks',
      'CancelTask',
      'murmur.StopSession',
      'GetExtendedAgentCard',
    ]);
    assert.equal(card.capabilities.streaming, false);
    assert.deepEqual(card.skills, []);
    assert.deepEqual(card.securityRequirements, [{ schemes: { bearer: { list: [] } } }]);
    const extended = assertRpcResult(await as(authedNone.url, tokensOf(authedNone).watcher, 'GetExtendedAgentCard'), 'extended');
    assert.deepEqual(
      extended.capabilities.extensions.map((e: Json) => e.uri),
      [DOOR_EXTENSION_URI, CAPSULE_EXTENSION_URI, STREAM_EXTENSION_URI],
    );
  });
});

describe('the extended card', () => {
  test('is the public card with the capsule extension between the door and stream extensions', async () => {
    const answer = await as(authed.url, tokens.watcher, 'GetExtendedAgentCard');
    assert.equal(answer.headers['content-type']?.startsWith('application/json'), true);
    const extended = assertRpcResult(answer, 'GetExtendedAgentCard');
    const want = expected(SEED_AUTHENTICATED_CARD, authed);
    want.capabilities.extensions.splice(1, 0, capsuleExtension(authed));
    assert.deepEqual(extended, want);
    assert.equal(extended.capabilities.extensions[1].params.sessionId, authed.sessionId);
  });

  test('every valid token reads the same extended card; without params or with {} alike', async () => {
    const first = assertRpcResult(await as(authed.url, tokens.operator, 'GetExtendedAgentCard'), 'operator');
    assert.deepEqual(assertRpcResult(await as(authed.url, tokens.watcher, 'GetExtendedAgentCard', {}), 'watcher {}'), first);
  });

  test('is refused without a valid token like every method', async () => {
    const answer = await call(authed.url, 'GetExtendedAgentCard', undefined);
    assert.equal(answer.status, 401);
    assert.equal(answer.json.error, 'unauthenticated');
    const bad = await call(authed.url, 'GetExtendedAgentCard', undefined, { authorization: 'Bearer nope' });
    assert.equal(bad.status, 401);
    assert.equal(bad.json.error, 'invalid_token');
  });

  test('the capsule extension params.sessionId is at the same path as on a public door card', async () => {
    const extended = assertRpcResult(await as(authed.url, tokens.watcher, 'GetExtendedAgentCard'), 'extended');
    const pub = await getCard(publicDoor);
    const at = (card: Json) => card.capabilities.extensions.find((e: Json) => e.uri === CAPSULE_EXTENSION_URI)?.params?.sessionId;
    assert.equal(at(extended), authed.sessionId);
    assert.equal(at(pub), publicDoor.sessionId);
  });
});

describe('a public door', () => {
  test("serves the seed's public card, which does not list GetExtendedAgentCard", async () => {
    const card = await getCard(publicDoor);
    assert.deepEqual(card, expected(SEED_PUBLIC_CARD, publicDoor));
    assert.equal(card.capabilities.extensions[0].params.methods.includes('GetExtendedAgentCard'), false);
    assert.equal(card.capabilities.extendedAgentCard, false);
  });

  test('answers GetExtendedAgentCard -32004 UnsupportedOperationError, whatever Authorization it carries', async () => {
    const variants: Array<Record<string, string>> = [{}, { authorization: 'Bearer anything' }, { authorization: 'Basic x' }];
    for (const headers of variants) {
      const error = assertRpcError(await call(publicDoor.url, 'GetExtendedAgentCard', undefined, headers), -32004, JSON.stringify(headers));
      assert.equal(typeof error.message, 'string');
      assert.deepEqual(error.data, [
        { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'UNSUPPORTED_OPERATION', domain: 'a2a-protocol.org', metadata: {} },
      ]);
    }
  });

  test('ignores Authorization on every method', async () => {
    for (const headers of [{ authorization: 'Bearer nope' }, { authorization: ['Bearer a', 'Bearer b'] }, { authorization: 'Basic x' }]) {
      const answer = await call(publicDoor.url, 'ListTasks', {}, headers);
      assert.equal(answer.status, 200, answer.text);
      assert.equal(typeof answer.json.result.totalSize, 'number');
    }
  });
});

describe('strict ProtoJSON', () => {
  test('the public card, the extended card and the public door card parse strictly as lf.a2a.v1.AgentCard', { skip: strictSkip() }, async () => {
    const cards: Array<[string, Json]> = [
      ['authenticated public card', await getCard(authed)],
      ['extended card', assertRpcResult(await as(authed.url, tokens.watcher, 'GetExtendedAgentCard'), 'extended')],
      ['public door card', await getCard(publicDoor)],
      ['authenticated task_acceptance: none card', await getCard(authedNone)],
      [
        'authenticated task_acceptance: none extended card',
        assertRpcResult(await as(authedNone.url, tokensOf(authedNone).operator, 'GetExtendedAgentCard'), 'none extended'),
      ],
    ];
    for (const [name, card] of cards) {
      assert.doesNotThrow(() => parseStrict('lf.a2a.v1.AgentCard', card), name);
    }
    // The check is strict: an unknown key is refused.
    assert.throws(() => parseStrict('lf.a2a.v1.AgentCard', { ...cards[0][1], provider2: {} }));
  });
});
