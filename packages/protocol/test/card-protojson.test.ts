import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  createFileRegistry,
  type DescMessage,
  type FileRegistry,
  fromBinary,
  fromJson,
  getExtension,
  hasExtension,
  type JsonValue as PbJsonValue,
} from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { type AgentCard, buildAgentCard, type JsonObject, METHOD, type MethodName, PUSH_CONFIG_METHODS, readMessageParams, TASK_STATES } from '../src/index.js';
import type { CardInput } from '../src/card.js';
import { TASK_STATE_FILTER_NAMES } from '../src/task-states.js';

// Seed "Agent Card": the card parses as lf.a2a.v1.AgentCard, as defined by a2a.proto at v1.0.1, under a strict
// protobuf JSON parser (ProtoJSON, ignoreUnknownFields: false), checked against the compiled descriptor
// shared/spec/a2a-v1.0.1.binpb (see shared/spec/README.md).

const BINPB_NAME = 'a2a-v1.0.1.binpb';

/** $A2A_BINPB, else the first shared/spec/a2a-v1.0.1.binpb found walking up from this file. */
function findBinpb(): string | null {
  const fromEnv = process.env.A2A_BINPB;
  if (fromEnv) return existsSync(fromEnv) ? fromEnv : null;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(dir, 'shared', 'spec', BINPB_NAME);
    if (existsSync(candidate)) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

const BINPB = findBinpb();
const skip = BINPB
  ? false
  : process.env.A2A_BINPB
    ? `A2A descriptor $A2A_BINPB (${process.env.A2A_BINPB}) absent: strict A2A check skipped`
    : `A2A descriptor shared/spec/${BINPB_NAME} absent from every folder above ${path.dirname(fileURLToPath(import.meta.url))}: strict A2A check skipped`;

let registryCache: FileRegistry | undefined;
function registry(): FileRegistry {
  if (!registryCache) {
    assert.ok(BINPB);
    registryCache = createFileRegistry(fromBinary(FileDescriptorSetSchema, readFileSync(BINPB)));
  }
  return registryCache;
}

function messageType(name: string): DescMessage {
  const desc = registry().getMessage(name);
  assert.ok(desc, `no ${name} in the descriptor set`);
  return desc;
}

/** Throws the parser's error when `value` is not strict ProtoJSON for `typeName`. */
function parseStrict(typeName: string, value: unknown): void {
  fromJson(messageType(typeName), value as PbJsonValue, { ignoreUnknownFields: false });
}

const REQUIRED = 2; // google.api.FieldBehavior.REQUIRED

/** JSON paths of fields marked (google.api.field_behavior) = REQUIRED that are absent or null. */
function missingRequired(typeName: string, value: unknown): string[] {
  const ext = registry().getExtension('google.api.field_behavior');
  assert.ok(ext, 'google.api.field_behavior is in the descriptor set');
  const isRequired = (options: unknown): boolean => {
    if (!options) return false;
    const opts = options as Parameters<typeof hasExtension>[0];
    if (!hasExtension(opts, ext)) return false;
    const behaviors: unknown = getExtension(opts, ext);
    return Array.isArray(behaviors) && behaviors.includes(REQUIRED);
  };
  const out: string[] = [];
  const walk = (desc: DescMessage, obj: unknown, at: string): void => {
    if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) return;
    const record = obj as Record<string, unknown>;
    for (const field of desc.fields) {
      const val = record[field.jsonName];
      const here = `${at}.${field.jsonName}`;
      if ((val === undefined || val === null) && isRequired(field.proto.options)) {
        out.push(here);
        continue;
      }
      if (val === undefined || val === null || !field.message || field.message.typeName.startsWith('google.protobuf.')) continue;
      if (field.fieldKind === 'list' && Array.isArray(val)) {
        for (const [i, v] of val.entries()) walk(field.message, v, `${here}[${i}]`);
      } else if (field.fieldKind === 'map') {
        for (const [k, v] of Object.entries(val as object)) walk(field.message, v, `${here}[${JSON.stringify(k)}]`);
      } else if (field.fieldKind === 'message') {
        walk(field.message, val, here);
      }
    }
  };
  walk(messageType(typeName), value, '$');
  return out;
}

// ---------------------------------------------------------------------------------------------

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

const base: CardInput = {
  name: 'my-agent',
  version: '0.1.0',
  url: 'http://localhost:41873',
  sessionId: 'ses_019f01a940ce7761854e768ecbe3d399',
  methods: PUBLIC_METHODS,
  authenticated: false,
  peerTasks: false,
  tools: ['bash'],
  shell: true,
  network: true,
  planes: ['files'],
  variant: 'public',
};

const CARDS: [string, AgentCard][] = [
  ['the public card', buildAgentCard(base)],
  ['the public card of an authenticated door', buildAgentCard({ ...base, authenticated: true, methods: [...PUBLIC_METHODS, 'GetExtendedAgentCard'] })],
  ['the extended card', buildAgentCard({ ...base, authenticated: true, variant: 'extended' })],
  ['the public card under task_acceptance: none', buildAgentCard({ ...base, methods: NONE_METHODS })],
  ['the authenticated public card under task_acceptance: none', buildAgentCard({ ...base, methods: NONE_METHODS, authenticated: true })],
  ['the extended card under task_acceptance: none', buildAgentCard({ ...base, methods: NONE_METHODS, authenticated: true, variant: 'extended' })],
  [
    'a transport: process card with both planes and peer tasks',
    buildAgentCard({ ...base, transport: 'process', planes: ['peer_files', 'files'], peerTasks: true }),
  ],
  ['a card with no tools, shell, network or planes', buildAgentCard({ ...base, tools: [], shell: false, network: false, planes: [] })],
];

for (const [what, card] of CARDS) {
  test(`${what} parses strictly as lf.a2a.v1.AgentCard`, { skip }, () => {
    // The card as it goes on the wire.
    parseStrict('lf.a2a.v1.AgentCard', JSON.parse(JSON.stringify(card)));
  });

  test(`${what} carries every REQUIRED field of lf.a2a.v1.AgentCard`, { skip }, () => {
    assert.deepEqual(missingRequired('lf.a2a.v1.AgentCard', JSON.parse(JSON.stringify(card))), []);
  });
}

test('the strict parser is strict: an unknown key or a wrong type is refused', { skip }, () => {
  const card = JSON.parse(JSON.stringify(buildAgentCard(base)));
  parseStrict('lf.a2a.v1.AgentCard', card);
  assert.throws(() => parseStrict('lf.a2a.v1.AgentCard', { ...card, provider_name: 'x' }));
  assert.throws(() => parseStrict('lf.a2a.v1.AgentCard', { ...card, url: 'http://localhost:41873' }), "the previous card's url key is not A2A v1.0");
  assert.throws(() => parseStrict('lf.a2a.v1.AgentCard', { ...card, skills: {} }));
  assert.throws(() => parseStrict('lf.a2a.v1.AgentCard', { ...card, capabilities: { ...card.capabilities, cancellation: true } }));
  assert.throws(() => parseStrict('lf.a2a.v1.AgentCard', { ...card, capabilities: { ...card.capabilities, streaming: 'true' } }));
});

test('the REQUIRED check finds what is missing', { skip }, () => {
  const card = JSON.parse(JSON.stringify(buildAgentCard(base)));
  delete card.name;
  delete card.supportedInterfaces[0].protocolVersion;
  card.skills[0].tags = null;
  assert.deepEqual(missingRequired('lf.a2a.v1.AgentCard', card), ['$.name', '$.supportedInterfaces[0].protocolVersion', '$.skills[0].tags']);
});

test('the read message of a full SendMessage parses strictly as lf.a2a.v1.Message', { skip }, () => {
  const verdict = readMessageParams(
    {
      message: {
        messageId: 'msg-1',
        role: 'ROLE_USER',
        contextId: 'ctx_1',
        taskId: 'tsk_1',
        referenceTaskIds: ['tsk_a', 'tsk_a', 'tsk_b'],
        parts: [{ text: 'hi', mediaType: 'text/plain' }, { data: { a: [1, null] }, mediaType: 'application/json', filename: 'a.json' }, { data: null }],
      },
    } as JsonObject,
    { maxImageBytes: 1024, maxImagesPerTurn: 1, transport: 'http' },
  );
  assert.ok(verdict.ok);
  parseStrict('lf.a2a.v1.Message', JSON.parse(JSON.stringify(verdict.read.message)));
});

test('every task state the door names is a value of lf.a2a.v1.TaskState, and the filter names are all of them', { skip }, () => {
  const states = registry().getEnum('lf.a2a.v1.TaskState');
  assert.ok(states);
  const names = states.values.map((v) => v.name);
  for (const state of TASK_STATES) assert.ok(names.includes(state), state);
  assert.deepEqual([...TASK_STATE_FILTER_NAMES].sort(), [...names].sort());
});

test("the A2A method names are the proto's A2AService methods, in its order", { skip }, () => {
  const service = registry().getService('lf.a2a.v1.A2AService');
  assert.ok(service);
  const a2a = Object.values(METHOD).filter((m) => !m.startsWith('murmur.'));
  assert.deepEqual(
    service.methods.map((m) => m.name),
    a2a,
  );
  for (const push of PUSH_CONFIG_METHODS) assert.ok(a2a.includes(push as MethodName), push);
});

test('ListTasksRequest, as the seed reads it, names members that exist on lf.a2a.v1.ListTasksRequest', { skip }, () => {
  parseStrict('lf.a2a.v1.ListTasksRequest', {
    tenant: '',
    contextId: 'ctx_1',
    status: 'TASK_STATE_UNSPECIFIED',
    pageSize: 50,
    pageToken: '',
    historyLength: 0,
    statusTimestampAfter: '2026-10-13T09:00:00.123Z',
    includeArtifacts: true,
  });
});
