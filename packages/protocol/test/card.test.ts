import assert from 'node:assert/strict';
import test from 'node:test';
import {
  type AgentCard,
  type AgentExtension,
  buildAgentCard,
  CAPSULE_EXTENSION_URI,
  DOOR_EXTENSION_URI,
  METHOD,
  type MethodName,
  PUSH_CONFIG_METHODS,
  STREAM_EXTENSION_URI,
} from '../src/index.js';
import {
  BEARER_SCHEME_DESCRIPTION,
  CAPSULE_EXTENSION_DESCRIPTION,
  type CardInput,
  DEFAULT_IO_MODES,
  DOOR_EXTENSION_DESCRIPTION,
  orderMethods,
  PLANE_ORDER,
  PROCESS_STREAM_FRAMES,
  STREAM_EXTENSION_DESCRIPTION,
  STREAM_FRAMES,
  TASK_SKILL,
} from '../src/card.js';
import { DOOR_METHOD_ORDER } from '../src/methods.js';

// Seed "Agent Card" through "Extensions".

const SESSION = 'ses_019f01a940ce7761854e768ecbe3d399';
const URL_ = 'http://localhost:41873';

/** The card at the top of the seed: my-agent 0.1.0 on port 41873, task_acceptance: single, bash, shell, network, exports.files. */
const SEED_PUBLIC_CARD = {
  name: 'my-agent',
  description: 'Murmur capsule my-agent 0.1.0',
  version: '0.1.0',
  supportedInterfaces: [{ url: URL_, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  capabilities: {
    streaming: true,
    pushNotifications: false,
    extendedAgentCard: false,
    extensions: [
      {
        uri: 'https://docs.murmur.nexus/reference/agent-card/#murmur-door-v1',
        description:
          "Every JSON-RPC method this door answers, A2A methods and murmur's own alike, the murmur ones named murmur.<Method>; whether it accepts tasks from peer capsules; and the forgetSession field a message's metadata may carry under this URI.",
        required: false,
        params: {
          methods: [
            'SendMessage',
            'SendStreamingMessage',
            'murmur.WatchSession',
            'GetTask',
            'ListTasks',
            'CancelTask',
            'SubscribeToTask',
            'murmur.StopSession',
          ],
          peerTasks: false,
        },
      },
      {
        uri: 'https://docs.murmur.nexus/reference/agent-card/#murmur-capsule-v1',
        description: 'The session answering this address and what the capsule may do. Served only to authenticated callers once the door authenticates.',
        required: false,
        params: {
          sessionId: SESSION,
          tools: ['bash'],
          shell: true,
          network: true,
          planes: ['files'],
        },
      },
      {
        uri: 'https://docs.murmur.nexus/reference/streaming-protocol/#murmur-stream-v1',
        description:
          "The murmur frames this capsule writes in addition to the A2A v1.0 events: sent on SendStreamingMessage and SubscribeToTask when the request's A2A-Extensions header names this URI, and always on murmur.WatchSession. Each is carried in a StreamResponse under metadata keyed by this URI.",
        required: false,
        params: {
          frames: ['text', 'thinking', 'tool-call-started', 'tool-call-progress', 'artifact', 'gap', 'lagged', 'connection-ack', 'capsule-closed'],
        },
      },
    ],
  },
  securitySchemes: {},
  securityRequirements: [],
  defaultInputModes: ['text/plain', 'application/json'],
  defaultOutputModes: ['text/plain', 'application/json'],
  skills: [
    {
      id: 'task',
      name: 'Run a task',
      description: 'Runs one task given as a text message and reports its outcome.',
      tags: ['task'],
    },
  ],
};

/** "The public card of an authenticated door": my-agent declaring network.authentication. */
const SEED_AUTHENTICATED_PUBLIC_CARD = {
  name: 'my-agent',
  description: 'Murmur capsule my-agent 0.1.0',
  version: '0.1.0',
  supportedInterfaces: [{ url: URL_, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  capabilities: {
    streaming: true,
    pushNotifications: false,
    extendedAgentCard: true,
    extensions: [
      {
        uri: 'https://docs.murmur.nexus/reference/agent-card/#murmur-door-v1',
        description:
          "Every JSON-RPC method this door answers, A2A methods and murmur's own alike, the murmur ones named murmur.<Method>; whether it accepts tasks from peer capsules; and the forgetSession field a message's metadata may carry under this URI.",
        required: false,
        params: {
          methods: [
            'SendMessage',
            'SendStreamingMessage',
            'murmur.WatchSession',
            'GetTask',
            'ListTasks',
            'CancelTask',
            'SubscribeToTask',
            'murmur.StopSession',
            'GetExtendedAgentCard',
          ],
          peerTasks: false,
        },
      },
      {
        uri: 'https://docs.murmur.nexus/reference/streaming-protocol/#murmur-stream-v1',
        description:
          "The murmur frames this capsule writes in addition to the A2A v1.0 events: sent on SendStreamingMessage and SubscribeToTask when the request's A2A-Extensions header names this URI, and always on murmur.WatchSession. Each is carried in a StreamResponse under metadata keyed by this URI.",
        required: false,
        params: {
          frames: ['text', 'thinking', 'tool-call-started', 'tool-call-progress', 'artifact', 'gap', 'lagged', 'connection-ack', 'capsule-closed'],
        },
      },
    ],
  },
  securitySchemes: {
    bearer: {
      httpAuthSecurityScheme: {
        scheme: 'Bearer',
        description: "A token this capsule's runtime mints at launch and accepts until the session ends.",
      },
    },
  },
  securityRequirements: [{ schemes: { bearer: { list: [] } } }],
  defaultInputModes: ['text/plain', 'application/json'],
  defaultOutputModes: ['text/plain', 'application/json'],
  skills: [
    {
      id: 'task',
      name: 'Run a task',
      description: 'Runs one task given as a text message and reports its outcome.',
      tags: ['task'],
      securityRequirements: [{ schemes: { bearer: { list: ['SendMessage'] } } }, { schemes: { bearer: { list: ['SendStreamingMessage'] } } }],
    },
  ],
};

const PUBLIC_METHODS: MethodName[] = [
  'SendMessage',
  'SendStreamingMessage',
  'murmur.WatchSession',
  'GetTask',
  'ListTasks',
  'CancelTask',
  'SubscribeToTask',
  'murmur.StopSession',
];
const NONE_METHODS: MethodName[] = ['murmur.WatchSession', 'GetTask', 'ListTasks', 'CancelTask', 'murmur.StopSession'];

function input(over: Partial<CardInput> = {}): CardInput {
  return {
    name: 'my-agent',
    version: '0.1.0',
    url: URL_,
    sessionId: SESSION,
    methods: PUBLIC_METHODS,
    authenticated: false,
    peerTasks: false,
    tools: ['bash'],
    shell: true,
    network: true,
    planes: ['files'],
    variant: 'public',
    ...over,
  };
}

const ext = (card: AgentCard, uri: string): AgentExtension | undefined => card.capabilities.extensions.find((e) => e.uri === uri);
const uris = (card: AgentCard): string[] => card.capabilities.extensions.map((e) => e.uri);
/** The card as it goes on the wire. */
const wire = (card: AgentCard): unknown => JSON.parse(JSON.stringify(card));

// ---------------------------------------------------------------------------------------------
// The seed's cards, to the letter

test("the public card of the seed's top example, to the letter", () => {
  assert.deepEqual(wire(buildAgentCard(input())), SEED_PUBLIC_CARD);
});

test('the public card with another session id and address substituted', () => {
  const sessionId = 'ses_0199c4e2f1b7712a9d3e4f5061728394';
  const url = 'http://127.0.0.1:50001';
  const expected = structuredClone(SEED_PUBLIC_CARD);
  expected.supportedInterfaces[0]!.url = url;
  (expected.capabilities.extensions[1]!.params as { sessionId: string }).sessionId = sessionId;
  assert.deepEqual(wire(buildAgentCard(input({ sessionId, url }))), expected);
});

test('the public card of an authenticated door, to the letter', () => {
  const card = buildAgentCard(input({ authenticated: true, methods: [...PUBLIC_METHODS, 'GetExtendedAgentCard'] }));
  assert.deepEqual(wire(card), SEED_AUTHENTICATED_PUBLIC_CARD);
});

test('the extended card: the authenticated public card with the capsule extension between door and stream', () => {
  const expected = structuredClone(SEED_AUTHENTICATED_PUBLIC_CARD);
  const [door, stream] = expected.capabilities.extensions;
  const capsule = SEED_PUBLIC_CARD.capabilities.extensions[1];
  (expected.capabilities.extensions as unknown[]) = [door, capsule, stream];
  const card = buildAgentCard(input({ authenticated: true, methods: [...PUBLIC_METHODS, 'GetExtendedAgentCard'], variant: 'extended' }));
  assert.deepEqual(wire(card), expected);
});

test("params.sessionId is at the same path on a public door's card and on the extended card", () => {
  const pub = buildAgentCard(input());
  const extended = buildAgentCard(input({ authenticated: true, variant: 'extended' }));
  assert.equal(pub.capabilities.extensions[1]!.uri, CAPSULE_EXTENSION_URI);
  assert.equal(extended.capabilities.extensions[1]!.uri, CAPSULE_EXTENSION_URI);
  assert.equal(pub.capabilities.extensions[1]!.params.sessionId, SESSION);
  assert.equal(extended.capabilities.extensions[1]!.params.sessionId, SESSION);
});

test("the capsule extension appears nowhere on an authenticated door's public card", () => {
  const card = buildAgentCard(input({ authenticated: true }));
  assert.deepEqual(uris(card), [DOOR_EXTENSION_URI, STREAM_EXTENSION_URI]);
  const text = JSON.stringify(card);
  assert.equal(text.includes(SESSION), false, 'no session id');
  assert.equal(text.includes('murmur-capsule-v1'), false);
});

test("a public door's variant is irrelevant: its card is always the one at the top", () => {
  assert.deepEqual(wire(buildAgentCard(input({ variant: 'extended' }))), SEED_PUBLIC_CARD);
});

// ---------------------------------------------------------------------------------------------
// Keys

test('every key is present, and no provider, documentationUrl, iconUrl or signatures', () => {
  for (const card of [buildAgentCard(input()), buildAgentCard(input({ authenticated: true })), buildAgentCard(input({ methods: NONE_METHODS }))]) {
    assert.deepEqual(Object.keys(card).sort(), [
      'capabilities',
      'defaultInputModes',
      'defaultOutputModes',
      'description',
      'name',
      'securityRequirements',
      'securitySchemes',
      'skills',
      'supportedInterfaces',
      'version',
    ]);
    assert.deepEqual(Object.keys(card.capabilities).sort(), ['extendedAgentCard', 'extensions', 'pushNotifications', 'streaming']);
  }
});

test('description is "Murmur capsule <name> <version>"', () => {
  const card = buildAgentCard(input({ name: 'other', version: '2.3.4-rc.1' }));
  assert.equal(card.name, 'other');
  assert.equal(card.version, '2.3.4-rc.1');
  assert.equal(card.description, 'Murmur capsule other 2.3.4-rc.1');
});

test('one interface: JSONRPC, protocolVersion 1.0, no tenant', () => {
  const card = buildAgentCard(input({ url: 'http://localhost:1' }));
  assert.deepEqual(card.supportedInterfaces, [{ url: 'http://localhost:1', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]);
  assert.equal('tenant' in card.supportedInterfaces[0]!, false);
});

test('pushNotifications is always false', () => {
  for (const authenticated of [false, true]) {
    for (const methods of [PUBLIC_METHODS, NONE_METHODS]) assert.equal(buildAgentCard(input({ authenticated, methods })).capabilities.pushNotifications, false);
  }
});

test('the default modes are text/plain and application/json, and are not shared between cards', () => {
  assert.deepEqual(DEFAULT_IO_MODES, ['text/plain', 'application/json']);
  const a = buildAgentCard(input());
  const b = buildAgentCard(input());
  assert.deepEqual(a.defaultInputModes, ['text/plain', 'application/json']);
  assert.deepEqual(a.defaultOutputModes, ['text/plain', 'application/json']);
  a.defaultInputModes.push('x');
  assert.deepEqual(b.defaultInputModes, ['text/plain', 'application/json']);
  assert.deepEqual(DEFAULT_IO_MODES, ['text/plain', 'application/json']);
});

test("every extension has required: false, and the descriptions are the seed's", () => {
  const card = buildAgentCard(input());
  for (const e of card.capabilities.extensions) assert.equal(e.required, false);
  assert.equal(ext(card, DOOR_EXTENSION_URI)?.description, DOOR_EXTENSION_DESCRIPTION);
  assert.equal(ext(card, CAPSULE_EXTENSION_URI)?.description, CAPSULE_EXTENSION_DESCRIPTION);
  assert.equal(ext(card, STREAM_EXTENSION_URI)?.description, STREAM_EXTENSION_DESCRIPTION);
  assert.equal(BEARER_SCHEME_DESCRIPTION, "A token this capsule's runtime mints at launch and accepts until the session ends.");
});

test('the extension URIs', () => {
  assert.equal(DOOR_EXTENSION_URI, 'https://docs.murmur.nexus/reference/agent-card/#murmur-door-v1');
  assert.equal(CAPSULE_EXTENSION_URI, 'https://docs.murmur.nexus/reference/agent-card/#murmur-capsule-v1');
  assert.equal(STREAM_EXTENSION_URI, 'https://docs.murmur.nexus/reference/streaming-protocol/#murmur-stream-v1');
});

test('the task skill', () => {
  assert.deepEqual(TASK_SKILL, {
    id: 'task',
    name: 'Run a task',
    description: 'Runs one task given as a text message and reports its outcome.',
    tags: ['task'],
  });
});

// ---------------------------------------------------------------------------------------------
// The door extension's methods

test("the door extension lists methods in the seed's order, whatever order they are given in", () => {
  const card = buildAgentCard(input({ methods: [...PUBLIC_METHODS].reverse() }));
  assert.deepEqual(ext(card, DOOR_EXTENSION_URI)?.params.methods, PUBLIC_METHODS);
});

test("DOOR_METHOD_ORDER is the seed's order", () => {
  assert.deepEqual(DOOR_METHOD_ORDER, [...PUBLIC_METHODS, 'GetExtendedAgentCard']);
});

test('orderMethods drops what the door extension never lists, and orders the rest', () => {
  assert.deepEqual(orderMethods(['GetExtendedAgentCard', 'GetTask', 'CreateTaskPushNotificationConfig', 'SendMessage']), [
    'SendMessage',
    'GetTask',
    'GetExtendedAgentCard',
  ]);
});

test('the four push config methods are never listed', () => {
  const methods = [...PUBLIC_METHODS, ...(PUSH_CONFIG_METHODS as MethodName[])];
  const listed = ext(buildAgentCard(input({ methods })), DOOR_EXTENSION_URI)?.params.methods as string[];
  assert.deepEqual(listed, PUBLIC_METHODS);
});

test('a public door does not list GetExtendedAgentCard, even when it is given (it answers -32004)', () => {
  const card = buildAgentCard(input({ methods: [...PUBLIC_METHODS, 'GetExtendedAgentCard'] }));
  assert.deepEqual(ext(card, DOOR_EXTENSION_URI)?.params.methods, PUBLIC_METHODS);
  assert.equal(card.capabilities.extendedAgentCard, false);
});

test('an authenticated door lists GetExtendedAgentCard last, on the public and the extended card', () => {
  for (const variant of ['public', 'extended'] as const) {
    for (const methods of [PUBLIC_METHODS, [...PUBLIC_METHODS, METHOD.GetExtendedAgentCard]]) {
      const card = buildAgentCard(input({ authenticated: true, variant, methods }));
      assert.deepEqual(ext(card, DOOR_EXTENSION_URI)?.params.methods, [...PUBLIC_METHODS, 'GetExtendedAgentCard']);
    }
  }
});

test('peerTasks is always present on the door extension, on the public and the extended card', () => {
  for (const peerTasks of [false, true]) {
    assert.equal(ext(buildAgentCard(input({ peerTasks })), DOOR_EXTENSION_URI)?.params.peerTasks, peerTasks);
    assert.equal(ext(buildAgentCard(input({ peerTasks, authenticated: true, variant: 'extended' })), DOOR_EXTENSION_URI)?.params.peerTasks, peerTasks);
    assert.equal(ext(buildAgentCard(input({ peerTasks, authenticated: true })), DOOR_EXTENSION_URI)?.params.peerTasks, peerTasks);
  }
});

// ---------------------------------------------------------------------------------------------
// lifecycle.task_acceptance: none

test('task_acceptance none, public door: five methods, streaming false, skills []', () => {
  const card = buildAgentCard(input({ methods: NONE_METHODS }));
  assert.deepEqual(ext(card, DOOR_EXTENSION_URI)?.params.methods, ['murmur.WatchSession', 'GetTask', 'ListTasks', 'CancelTask', 'murmur.StopSession']);
  assert.equal(card.capabilities.streaming, false);
  assert.deepEqual(card.skills, []);
  assert.deepEqual(uris(card), [DOOR_EXTENSION_URI, CAPSULE_EXTENSION_URI, STREAM_EXTENSION_URI]);
  const expected = structuredClone(SEED_PUBLIC_CARD);
  expected.capabilities.streaming = false;
  expected.capabilities.extensions[0]!.params.methods = ['murmur.WatchSession', 'GetTask', 'ListTasks', 'CancelTask', 'murmur.StopSession'];
  expected.skills = [];
  assert.deepEqual(wire(card), expected);
});

test('task_acceptance none, authenticated door: five methods then GetExtendedAgentCard, streaming false, skills []', () => {
  for (const variant of ['public', 'extended'] as const) {
    const card = buildAgentCard(input({ authenticated: true, variant, methods: [...NONE_METHODS, 'GetExtendedAgentCard'] }));
    assert.deepEqual(ext(card, DOOR_EXTENSION_URI)?.params.methods, [
      'murmur.WatchSession',
      'GetTask',
      'ListTasks',
      'CancelTask',
      'murmur.StopSession',
      'GetExtendedAgentCard',
    ]);
    assert.equal(card.capabilities.streaming, false);
    assert.equal(card.capabilities.extendedAgentCard, true);
    assert.deepEqual(card.skills, []);
    assert.deepEqual(card.securityRequirements, [{ schemes: { bearer: { list: [] } } }]);
  }
});

test('task_acceptance none: SendStreamingMessage and SubscribeToTask, answered -32004, are not listed', () => {
  const card = buildAgentCard(input({ methods: [...NONE_METHODS, 'SendStreamingMessage', 'SubscribeToTask', 'GetExtendedAgentCard'] }));
  assert.deepEqual(ext(card, DOOR_EXTENSION_URI)?.params.methods, NONE_METHODS);
  assert.equal(card.capabilities.streaming, false);
  assert.deepEqual(card.skills, []);
});

test('capabilities.streaming is true exactly when the door extension lists SendStreamingMessage', () => {
  for (const methods of [PUBLIC_METHODS, NONE_METHODS, PUBLIC_METHODS.filter((m) => m !== 'SendStreamingMessage')]) {
    for (const authenticated of [false, true]) {
      const card = buildAgentCard(input({ methods, authenticated }));
      const listed = ext(card, DOOR_EXTENSION_URI)?.params.methods as string[];
      assert.equal(card.capabilities.streaming, listed.includes('SendStreamingMessage'));
    }
  }
});

test('a door serving SendMessage but not SendStreamingMessage: one requirement on its skill', () => {
  const methods = PUBLIC_METHODS.filter((m) => m !== 'SendStreamingMessage');
  const card = buildAgentCard(input({ authenticated: true, methods }));
  assert.deepEqual(card.skills[0]!.securityRequirements, [{ schemes: { bearer: { list: ['SendMessage'] } } }]);
  assert.equal(card.capabilities.streaming, false);
});

// ---------------------------------------------------------------------------------------------
// Security

test('a public door: securitySchemes {}, securityRequirements [], extendedAgentCard false, no skill requirements', () => {
  const card = buildAgentCard(input());
  assert.deepEqual(card.securitySchemes, {});
  assert.deepEqual(card.securityRequirements, []);
  assert.equal(card.capabilities.extendedAgentCard, false);
  assert.equal('securityRequirements' in card.skills[0]!, false);
});

test('an authenticated door: the bearer scheme, any valid token, one skill requirement per task-starting method', () => {
  for (const variant of ['public', 'extended'] as const) {
    const card = buildAgentCard(input({ authenticated: true, variant }));
    assert.deepEqual(card.securitySchemes, SEED_AUTHENTICATED_PUBLIC_CARD.securitySchemes);
    assert.deepEqual(card.securityRequirements, [{ schemes: { bearer: { list: [] } } }]);
    assert.equal(card.capabilities.extendedAgentCard, true);
    assert.deepEqual(card.skills, SEED_AUTHENTICATED_PUBLIC_CARD.skills);
  }
});

test('building a card does not change TASK_SKILL', () => {
  buildAgentCard(input({ authenticated: true }));
  assert.equal('securityRequirements' in TASK_SKILL, false);
});

// ---------------------------------------------------------------------------------------------
// The capsule extension

test('capsule extension params: sessionId, tools, shell, network, planes', () => {
  const card = buildAgentCard(input({ tools: ['bash', 'grep'], shell: false, network: false, planes: [] }));
  assert.deepEqual(ext(card, CAPSULE_EXTENSION_URI)?.params, { sessionId: SESSION, tools: ['bash', 'grep'], shell: false, network: false, planes: [] });
});

test('planes appear in the order files, peer_files', () => {
  assert.deepEqual(PLANE_ORDER, ['files', 'peer_files']);
  for (const planes of [
    ['files', 'peer_files'],
    ['peer_files', 'files'],
  ]) {
    assert.deepEqual(ext(buildAgentCard(input({ planes })), CAPSULE_EXTENSION_URI)?.params.planes, ['files', 'peer_files']);
  }
  assert.deepEqual(ext(buildAgentCard(input({ planes: ['peer_files'] })), CAPSULE_EXTENSION_URI)?.params.planes, ['peer_files']);
});

// ---------------------------------------------------------------------------------------------
// The stream extension

test('transport: http (the default): the nine frames', () => {
  assert.deepEqual(
    [...STREAM_FRAMES],
    ['text', 'thinking', 'tool-call-started', 'tool-call-progress', 'artifact', 'gap', 'lagged', 'connection-ack', 'capsule-closed'],
  );
  assert.deepEqual(ext(buildAgentCard(input()), STREAM_EXTENSION_URI)?.params.frames, [...STREAM_FRAMES]);
  assert.deepEqual(ext(buildAgentCard(input({ transport: 'http' })), STREAM_EXTENSION_URI)?.params.frames, [...STREAM_FRAMES]);
});

test('transport: process: the same frames, with quota and suggested-prompt after artifact', () => {
  const expected = [
    'text',
    'thinking',
    'tool-call-started',
    'tool-call-progress',
    'artifact',
    'quota',
    'suggested-prompt',
    'gap',
    'lagged',
    'connection-ack',
    'capsule-closed',
  ];
  assert.deepEqual([...PROCESS_STREAM_FRAMES], expected);
  for (const over of [{}, { authenticated: true }, { authenticated: true, variant: 'extended' as const }]) {
    assert.deepEqual(ext(buildAgentCard(input({ ...over, transport: 'process' })), STREAM_EXTENSION_URI)?.params.frames, expected);
  }
});

test('the frames list on a card is a copy: changing it does not change the next card', () => {
  const a = buildAgentCard(input());
  (a.capabilities.extensions[2]!.params.frames as string[]).push('x');
  assert.deepEqual(ext(buildAgentCard(input()), STREAM_EXTENSION_URI)?.params.frames, [...STREAM_FRAMES]);
});
