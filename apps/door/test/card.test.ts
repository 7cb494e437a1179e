/**
 * The public agent card (seed 000, "Agent Card", "Keys", "capabilities", "skills", "Door extension", "Capsule
 * extension", "Stream extension"): the seed's card of my-agent under single and queue, the none variant, the
 * capsule extension derived from the manifest, strict ProtoJSON as lf.a2a.v1.AgentCard, and a door extension that
 * lists exactly the methods POST / answers with something other than -32601.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type DoorProcess, makeCapsule, runDoor } from './support/door-process.js';
import { SEED_PUBLIC_CARD } from './support/seed-cards.js';
import { parseStrict, strictSkip } from './support/strict-a2a.js';
import { httpRequest, PUSH_CONFIG_METHODS, probeMethod } from './support/wire.js';

/**
 * Whether this door serves the streaming methods (SendStreamingMessage, SubscribeToTask, murmur.WatchSession).
 * Everything below that depends on streaming is derived from this one constant: the door extension's methods,
 * capabilities.streaming, and which methods must answer -32601.
 */
const STREAMING_SERVED = true;
const STREAMING_METHODS = ['SendStreamingMessage', 'SubscribeToTask', 'murmur.WatchSession'];

const DOOR_URI = 'https://docs.murmur.nexus/reference/agent-card/#murmur-door-v1';
const CAPSULE_URI = 'https://docs.murmur.nexus/reference/agent-card/#murmur-capsule-v1';
const STREAM_URI = 'https://docs.murmur.nexus/reference/streaming-protocol/#murmur-stream-v1';
const CARD_PATH = '/.well-known/agent-card.json';

/** The door extension's methods for a public door under none (seed 000, "Door extension" table). */
const SEED_NONE_METHODS = ['murmur.WatchSession', 'GetTask', 'ListTasks', 'CancelTask', 'murmur.StopSession'];

const SCRIPT = 'default:\n  turns:\n    - answer: ok\n';

function myAgent(acceptance: 'single' | 'queue' | 'none', extra: string[] = []): string {
  return [
    'name: my-agent',
    'version: 0.1.0',
    'lifecycle:',
    `  task_acceptance: ${acceptance}`,
    'inference:',
    '  driver: script',
    '  script: script.yaml',
    'capabilities:',
    '  shell:',
    '    allow: [bash]',
    '  network:',
    '    allow: [api.example.com]',
    'exports:',
    '  files:',
    "    root: '.'",
    ...extra,
    '',
  ].join('\n');
}

// biome-ignore lint/suspicious/noExplicitAny: cards are compared as plain JSON
type Json = any;

const served = (methods: string[]) => methods.filter((m) => STREAMING_SERVED || !STREAMING_METHODS.includes(m));

/** The seed's card with this door's url and session id, and what streaming the door serves. */
function expectedCard(door: DoorProcess): Json {
  const card = JSON.parse(SEED_PUBLIC_CARD);
  card.supportedInterfaces[0].url = door.url;
  const ext = (uri: string) => card.capabilities.extensions.find((e: Json) => e.uri === uri);
  ext(CAPSULE_URI).params.sessionId = door.sessionId;
  ext(DOOR_URI).params.methods = served(ext(DOOR_URI).params.methods);
  card.capabilities.streaming = ext(DOOR_URI).params.methods.includes('SendStreamingMessage');
  return card;
}

function expectedNoneCard(door: DoorProcess): Json {
  const card = expectedCard(door);
  card.capabilities.extensions[0].params.methods = served(SEED_NONE_METHODS);
  card.capabilities.streaming = false;
  card.skills = [];
  return card;
}

async function getCard(url: string, headers: Record<string, string> = {}): Promise<{ json: Json; text: string; headers: Record<string, unknown> }> {
  const answer = await httpRequest(url, { method: 'GET', path: CARD_PATH, headers });
  assert.equal(answer.status, 200, answer.text);
  assert.match(String(answer.headers['content-type']), /^application\/json/);
  return { json: answer.json, text: answer.text, headers: answer.headers };
}

let single: DoorProcess;
let queue: DoorProcess;
let none: DoorProcess;
let bare: DoorProcess;

before(async () => {
  const bareManifest = [
    'name: bare-agent',
    'version: 2.3.4-rc.1',
    'inference:',
    '  driver: script',
    '  script: script.yaml',
    'exports:',
    '  peer_files: {}',
    '  files: {}',
    '  peer_tasks:',
    '    accept: true',
    '',
  ].join('\n');
  [single, queue, none, bare] = await Promise.all([
    runDoor(makeCapsule(myAgent('single'), SCRIPT)),
    runDoor(makeCapsule(myAgent('queue'), SCRIPT)),
    runDoor(makeCapsule(myAgent('none'), SCRIPT)),
    runDoor(makeCapsule(bareManifest, SCRIPT)),
  ]);
});
after(async () => {
  await Promise.all([single?.stop(), queue?.stop(), none?.stop(), bare?.stop()]);
});

describe('the public card', () => {
  test("under task_acceptance: single it deep-equals the seed's card", async () => {
    const { json } = await getCard(single.url);
    assert.deepEqual(json, expectedCard(single));
  });

  test('under queue it is the same card', async () => {
    const { json } = await getCard(queue.url);
    assert.deepEqual(json, expectedCard(queue));
  });

  test('under none: the five methods, streaming false, no skills', async () => {
    const { json } = await getCard(none.url);
    assert.deepEqual(json, expectedNoneCard(none));
    assert.equal(json.capabilities.streaming, false);
    assert.deepEqual(json.skills, []);
    assert.ok(!json.capabilities.extensions[0].params.methods.includes('SendMessage'));
  });

  test('keys in the seed order, and no provider, documentationUrl, iconUrl or signatures', async () => {
    const { json } = await getCard(single.url);
    assert.deepEqual(Object.keys(json), [
      'name',
      'description',
      'version',
      'supportedInterfaces',
      'capabilities',
      'securitySchemes',
      'securityRequirements',
      'defaultInputModes',
      'defaultOutputModes',
      'skills',
    ]);
    for (const key of ['provider', 'documentationUrl', 'iconUrl', 'signatures']) assert.equal(key in json, false, key);
    assert.deepEqual(
      json.capabilities.extensions.map((e: Json) => e.uri),
      [DOOR_URI, CAPSULE_URI, STREAM_URI],
    );
  });

  test('capabilities.streaming is true exactly when the door extension lists SendStreamingMessage', async () => {
    for (const door of [single, queue, none, bare]) {
      const { json } = await getCard(door.url);
      assert.equal(json.capabilities.streaming, json.capabilities.extensions[0].params.methods.includes('SendStreamingMessage'));
    }
  });

  test('the capsule extension follows the manifest: no shell, no network, both planes in order, peer tasks accepted', async () => {
    const { json } = await getCard(bare.url);
    assert.equal(json.name, 'bare-agent');
    assert.equal(json.version, '2.3.4-rc.1');
    assert.equal(json.description, 'Murmur capsule bare-agent 2.3.4-rc.1');
    const capsule = json.capabilities.extensions.find((e: Json) => e.uri === CAPSULE_URI);
    assert.deepEqual(capsule.params, { sessionId: bare.sessionId, tools: [], shell: false, network: false, planes: ['files', 'peer_files'] });
    assert.equal(json.capabilities.extensions[0].params.peerTasks, true);
  });

  test('the card reads no A2A-Version, and is the same bytes on every read', async () => {
    const first = await getCard(single.url);
    const variants: Array<Record<string, string>> = [{ 'A2A-Version': '0.3' }, { 'A2A-Version': '1.0' }, { 'content-type': 'text/plain' }];
    for (const headers of variants) {
      const again = await getCard(single.url, headers);
      assert.equal(again.text, first.text);
      assert.equal(again.headers['a2a-extensions'], undefined);
    }
  });

  test('each session names itself: the capsule extension carries the announced session id', async () => {
    for (const door of [single, queue, none]) {
      const { json } = await getCard(door.url);
      assert.equal(json.capabilities.extensions[1].params.sessionId, door.sessionId);
      assert.equal(json.supportedInterfaces[0].url, door.url);
    }
  });
});

describe('the door extension lists exactly what POST / serves', () => {
  const universe = [
    'SendMessage',
    'SendStreamingMessage',
    'GetTask',
    'ListTasks',
    'CancelTask',
    'SubscribeToTask',
    ...PUSH_CONFIG_METHODS,
    'GetExtendedAgentCard',
    'murmur.WatchSession',
    'murmur.StopSession',
  ];

  for (const which of ['single', 'none'] as const) {
    test(`${which}: a listed method never answers -32601; an unlisted one answers -32601, or -32003/-32004 where the seed says so`, async () => {
      const door = which === 'single' ? single : none;
      const { json } = await getCard(door.url);
      const listed: string[] = json.capabilities.extensions[0].params.methods;
      for (const method of universe) {
        const answer = await probeMethod(door.url, method, { id: '' });
        const code = answer.kind === 'json' ? answer.code : null;
        if (listed.includes(method)) {
          assert.notEqual(code, -32601, `${method} is listed but answers -32601`);
          continue;
        }
        const documented = PUSH_CONFIG_METHODS.includes(method as (typeof PUSH_CONFIG_METHODS)[number])
          ? -32003
          : method === 'GetExtendedAgentCard' || (which === 'none' && (method === 'SendStreamingMessage' || method === 'SubscribeToTask'))
            ? -32004
            : -32601;
        assert.equal(code, documented, `${method} is not listed and answers ${JSON.stringify(answer)}`);
      }
    });
  }
});

describe('strict ProtoJSON', () => {
  test('every public card parses as lf.a2a.v1.AgentCard with ignoreUnknownFields: false', { skip: strictSkip() }, async () => {
    for (const door of [single, queue, none, bare]) {
      const { json } = await getCard(door.url);
      assert.doesNotThrow(() => parseStrict('lf.a2a.v1.AgentCard', json), door.name);
    }
    // The parse is strict: a key the proto does not define is refused.
    const { json } = await getCard(single.url);
    assert.throws(() => parseStrict('lf.a2a.v1.AgentCard', { ...json, sessionId: single.sessionId }));
  });
});
