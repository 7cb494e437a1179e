import assert from 'node:assert/strict';
import test from 'node:test';
import { DOOR_EXTENSION_URI, type JsonObject, type JsonRpcErrorObject, type JsonValue, type ReadMessage, readMessageParams } from '../src/index.js';
import { MAX_REFERENCED_TASKS, type MessageReaderLimits } from '../src/message-reader.js';

// Seed "Messages", "Parts", "forgetSession": SendMessage's params.message, read in full or refused,
// the checks in a fixed order, the first failure answering.

const HTTP: MessageReaderLimits = { maxImageBytes: 1024, maxImagesPerTurn: 4, transport: 'http' };
const PROCESS: MessageReaderLimits = { ...HTTP, transport: 'process' };
const INFO = 'type.googleapis.com/google.rpc.ErrorInfo';
const DOOR_KEY = 'message.metadata["https://docs.murmur.nexus/reference/agent-card/#murmur-door-v1"]';
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAE='; // 89 50 4E 47 0D 0A 1A 0A, then an IHDR start

function message(over: Record<string, unknown> = {}): JsonObject {
  return { messageId: 'msg-1', role: 'ROLE_USER', parts: [{ text: 'hi' }], ...over } as JsonObject;
}

function read(params: Record<string, unknown>, limits: MessageReaderLimits = HTTP): ReadMessage {
  const verdict = readMessageParams(params as JsonObject, limits);
  if (!verdict.ok) assert.fail(`expected the message to be read, got ${JSON.stringify(verdict.error)}`);
  return verdict.read;
}

function refuse(params: Record<string, unknown>, limits: MessageReaderLimits = HTTP): JsonRpcErrorObject {
  const verdict = readMessageParams(params as JsonObject, limits);
  if (verdict.ok) assert.fail('expected the message to be refused');
  return verdict.error;
}

/** Asserts a -32602 refusal with exactly this message (standard errors carry no data). */
function assertInvalid(params: Record<string, unknown>, expected: string, limits: MessageReaderLimits = HTTP): void {
  assert.deepEqual(refuse(params, limits), { code: -32602, message: expected });
}

// ---------------------------------------------------------------------------------------------
// A message that is read

test('a minimal message is read: one text part, no task, no context', () => {
  const r = read({ message: message() });
  assert.deepEqual(r, {
    message: { messageId: 'msg-1', role: 'ROLE_USER', parts: [{ text: 'hi' }] },
    taskId: null,
    contextId: null,
    referenceTaskIds: [],
    forgetSession: false,
    returnImmediately: false,
    text: 'hi',
    images: [],
    usesDoorExtension: false,
  });
});

test('taskId, contextId and referenceTaskIds are read and echoed on the message', () => {
  const r = read({ message: message({ taskId: 'tsk_1', contextId: 'ctx_1', referenceTaskIds: ['tsk_a', 'tsk_b'] }) });
  assert.equal(r.taskId, 'tsk_1');
  assert.equal(r.contextId, 'ctx_1');
  assert.deepEqual(r.referenceTaskIds, ['tsk_a', 'tsk_b']);
  assert.deepEqual(r.message, {
    messageId: 'msg-1',
    role: 'ROLE_USER',
    parts: [{ text: 'hi' }],
    contextId: 'ctx_1',
    taskId: 'tsk_1',
    referenceTaskIds: ['tsk_a', 'tsk_b'],
  });
});

test('taskId "" names no task, and contextId "" names no context', () => {
  const r = read({ message: message({ taskId: '', contextId: '' }) });
  assert.equal(r.taskId, null);
  assert.equal(r.contextId, null);
  assert.equal('taskId' in r.message, false);
  assert.equal('contextId' in r.message, false);
});

test('unknown fields are ignored, and extensions is not read', () => {
  const r = read({
    message: message({ extensions: [DOOR_EXTENSION_URI], unknownField: 1, extensions2: 'x' }),
    metadata: { anything: true },
    unknownParam: [1],
  });
  assert.equal(r.text, 'hi');
  assert.equal(r.usesDoorExtension, false, 'extensions is not read: only metadata uses the door extension');
});

test('extensions of any type is ignored', () => {
  read({ message: message({ extensions: 'not an array' }) });
  read({ message: message({ extensions: null }) });
});

test('a text part is read whatever its mediaType', () => {
  assert.equal(read({ message: message({ parts: [{ text: 'x', mediaType: 'application/octet-stream' }] }) }).text, 'x');
});

test('the parts are read in order, joined by a newline', () => {
  const r = read({ message: message({ parts: [{ text: 'one' }, { text: 'two' }, { text: '' }, { text: 'four' }] }) });
  assert.equal(r.text, 'one\ntwo\n\nfour');
});

test("a text part's mediaType and filename, and any part's metadata, never reach the agent", () => {
  const r = read({
    message: message({
      parts: [
        { text: 'plain', mediaType: 'text/markdown', filename: 'notes.md', metadata: { secret: 1 } },
        { data: 1, metadata: { secret: 2 } },
      ],
    }),
  });
  assert.equal(r.text, 'plain\n```data\n1\n```');
});

test("the seed's data-part example, to the letter", () => {
  const r = read({
    message: message({
      parts: [{ text: 'summarise' }, { data: { note: 'a ``` b', rows: [1, 2] }, mediaType: 'application/json' }],
    }),
  });
  assert.equal(
    r.text,
    ['summarise', '````data media-type=application/json', '{', '  "note": "a ``` b",', '  "rows": [', '    1,', '    2', '  ]', '}', '````'].join('\n'),
  );
});

test('a data part is read, null included, whatever its mediaType', () => {
  const values: JsonValue[] = [null, 0, false, 'text', [], {}, { a: [null] }];
  for (const data of values) {
    const r = read({ message: message({ parts: [{ data, mediaType: 'image/png' }] }) });
    assert.equal(r.text, `\`\`\`data media-type=image/png\n${JSON.stringify(data, null, 2)}\n\`\`\``);
  }
});

test("a data part's filename follows its media type in the fence's opening line", () => {
  const r = read({ message: message({ parts: [{ data: { a: 1 }, mediaType: 'application/json', filename: 'rows.json' }] }) });
  assert.equal(r.text, '```data media-type=application/json filename=rows.json\n{\n  "a": 1\n}\n```');
});

test('the parts are kept on the read message as sent', () => {
  const parts = [{ text: 'a', metadata: { k: 'v' } }, { data: null }];
  assert.deepEqual(read({ message: message({ parts }) }).message.parts, parts);
});

test('message.metadata that is not an object is ignored', () => {
  for (const metadata of [null, 'x', 1, [DOOR_EXTENSION_URI], true]) {
    const r = read({ message: message({ metadata }) });
    assert.equal(r.forgetSession, false);
    assert.equal(r.usesDoorExtension, false);
  }
});

test('other metadata keys, and other keys under the door URI, are ignored', () => {
  const r = read({
    message: message({ metadata: { other: { forgetSession: 'nope' }, [DOOR_EXTENSION_URI]: { forgetSession: false, x: 1 } } }),
  });
  assert.equal(r.forgetSession, false);
  assert.equal(r.usesDoorExtension, true);
});

test('a message whose metadata holds the door URI uses the door extension, even with no forgetSession', () => {
  assert.equal(read({ message: message({ metadata: { [DOOR_EXTENSION_URI]: {} } }) }).usesDoorExtension, true);
});

test('forgetSession: true on a message that starts a task, on transport: process', () => {
  const r = read({ message: message({ metadata: { [DOOR_EXTENSION_URI]: { forgetSession: true } } }) }, PROCESS);
  assert.equal(r.forgetSession, true);
  assert.equal(r.usesDoorExtension, true);
});

test("the seed's forgetSession example is read", () => {
  const r = read(
    {
      message: {
        messageId: 'msg-1',
        role: 'ROLE_USER',
        contextId: 'ctx_0193f2a1c4d87e01b2c3d4e5f6a7b8c9',
        parts: [{ text: 'carry on' }],
        extensions: [DOOR_EXTENSION_URI],
        metadata: { [DOOR_EXTENSION_URI]: { forgetSession: true } },
      },
    },
    PROCESS,
  );
  assert.equal(r.forgetSession, true);
  assert.equal(r.contextId, 'ctx_0193f2a1c4d87e01b2c3d4e5f6a7b8c9');
  assert.equal(r.text, 'carry on');
});

test('forgetSession: true with taskId "" starts a task: "" names none', () => {
  const r = read({ message: message({ taskId: '', metadata: { [DOOR_EXTENSION_URI]: { forgetSession: true } } }) }, PROCESS);
  assert.equal(r.forgetSession, true);
  assert.equal(r.taskId, null);
});

test('forgetSession: false, or absent, asks for nothing, on any transport and with a taskId', () => {
  assert.equal(read({ message: message({ taskId: 'tsk_1', metadata: { [DOOR_EXTENSION_URI]: { forgetSession: false } } }) }).forgetSession, false);
  assert.equal(read({ message: message({ taskId: 'tsk_1', metadata: { [DOOR_EXTENSION_URI]: {} } }) }).forgetSession, false);
});

test('configuration.returnImmediately: true, false, null, absent, and no configuration', () => {
  assert.equal(read({ message: message(), configuration: { returnImmediately: true } }).returnImmediately, true);
  assert.equal(read({ message: message(), configuration: { returnImmediately: false } }).returnImmediately, false);
  assert.equal(read({ message: message(), configuration: { returnImmediately: null } }).returnImmediately, false);
  assert.equal(read({ message: message(), configuration: {} }).returnImmediately, false);
  assert.equal(read({ message: message(), configuration: null }).returnImmediately, false);
  assert.equal(read({ message: message() }).returnImmediately, false);
});

test('configuration members other than returnImmediately and taskPushNotificationConfig are ignored', () => {
  const r = read({ message: message(), configuration: { acceptedOutputModes: 5, historyLength: 'x', blocking: 'yes', taskPushNotificationConfig: null } });
  assert.equal(r.returnImmediately, false);
});

test('referenceTaskIds: each id kept once, in first-occurrence order', () => {
  const r = read({ message: message({ referenceTaskIds: ['tsk_b', 'tsk_a', 'tsk_b', 'tsk_c', 'tsk_a'] }) });
  assert.deepEqual(r.referenceTaskIds, ['tsk_b', 'tsk_a', 'tsk_c']);
  assert.deepEqual(r.message.referenceTaskIds, ['tsk_b', 'tsk_a', 'tsk_c']);
});

test('referenceTaskIds: [] names none and is not echoed', () => {
  const r = read({ message: message({ referenceTaskIds: [] }) });
  assert.deepEqual(r.referenceTaskIds, []);
  assert.equal('referenceTaskIds' in r.message, false);
});

test('referenceTaskIds: at most 16 distinct tasks, however many times each is named', () => {
  assert.equal(MAX_REFERENCED_TASKS, 16);
  const sixteen = Array.from({ length: 16 }, (_, i) => `tsk_${i}`);
  assert.equal(read({ message: message({ referenceTaskIds: sixteen }) }).referenceTaskIds.length, 16);
  assert.equal(read({ message: message({ referenceTaskIds: [...sixteen, ...sixteen, 'tsk_0'] }) }).referenceTaskIds.length, 16);
  assertInvalid(
    { message: message({ referenceTaskIds: [...sixteen, 'tsk_16'] }) },
    'Invalid params: message.referenceTaskIds names 17 distinct tasks; at most 16',
  );
});

// ---------------------------------------------------------------------------------------------
// Step 1: params.message is an object.

test('step 1: params.message missing is refused', () => {
  assertInvalid({}, 'Invalid params: params.message must be an object');
});

test('step 1: a bare message as params is refused', () => {
  assertInvalid(message(), 'Invalid params: params.message must be an object');
});

test('step 1: a message that is not an object is refused', () => {
  for (const m of [null, 'hi', 1, [message()], true]) assertInvalid({ message: m }, 'Invalid params: params.message must be an object');
});

// ---------------------------------------------------------------------------------------------
// Step 2: messageId, role, then parts.

test('step 2: messageId must be a non-empty string', () => {
  const expected = 'Invalid params: message.messageId must be a non-empty string';
  assertInvalid({ message: message({ messageId: undefined }) }, expected);
  const { messageId: _, ...withoutId } = message();
  assertInvalid({ message: withoutId }, expected);
  for (const messageId of ['', 1, null, ['msg-1'], {}]) assertInvalid({ message: message({ messageId }) }, expected);
});

test('step 2: role must be ROLE_USER; a message with role "user" is refused', () => {
  assertInvalid({ message: message({ role: 'user' }) }, 'Invalid params: message.role must be ROLE_USER, not "user"');
  assertInvalid({ message: message({ role: 'ROLE_AGENT' }) }, 'Invalid params: message.role must be ROLE_USER, not "ROLE_AGENT"');
  assertInvalid({ message: message({ role: 'ROLE_UNSPECIFIED' }) }, 'Invalid params: message.role must be ROLE_USER, not "ROLE_UNSPECIFIED"');
  assertInvalid({ message: message({ role: 1 }) }, 'Invalid params: message.role must be ROLE_USER, not 1');
  assertInvalid({ message: message({ role: 'role_user' }) }, 'Invalid params: message.role must be ROLE_USER, not "role_user"');
  const { role: _, ...withoutRole } = message();
  assertInvalid({ message: withoutRole }, 'Invalid params: message.role must be ROLE_USER, not null');
});

test('step 2: parts must be a non-empty array', () => {
  const expected = 'Invalid params: message.parts must be a non-empty array';
  const { parts: _, ...withoutParts } = message();
  assertInvalid({ message: withoutParts }, expected);
  for (const parts of [[], null, { text: 'hi' }, 'hi']) assertInvalid({ message: message({ parts }) }, expected);
});

test('step 2 order: messageId answers before role, role before parts', () => {
  assertInvalid({ message: message({ messageId: '', role: 'user', parts: [] }) }, 'Invalid params: message.messageId must be a non-empty string');
  assertInvalid({ message: message({ role: 'user', parts: [] }) }, 'Invalid params: message.role must be ROLE_USER, not "user"');
});

test('step 1 before step 2: a bare message is refused as a bare message even when its role is wrong', () => {
  assertInvalid({ ...message({ role: 'user' }) }, 'Invalid params: params.message must be an object');
});

// ---------------------------------------------------------------------------------------------
// Step 3: every part sets exactly one of text, raw, url and data.

test('step 3: a part that is not an object is refused', () => {
  assertInvalid({ message: message({ parts: [{ text: 'a' }, 'b'] }) }, 'Invalid params: message.parts[1] must be an object');
  assertInvalid({ message: message({ parts: [null] }) }, 'Invalid params: message.parts[0] must be an object');
  assertInvalid({ message: message({ parts: [[{ text: 'a' }]] }) }, 'Invalid params: message.parts[0] must be an object');
});

test('step 3: a part that sets none of text, raw, url and data is refused', () => {
  assertInvalid(
    { message: message({ parts: [{ mediaType: 'text/plain' }] }) },
    'Invalid params: message.parts[0] must set exactly one of text, raw, url and data',
  );
  assertInvalid({ message: message({ parts: [{ text: 'a' }, {}] }) }, 'Invalid params: message.parts[1] must set exactly one of text, raw, url and data');
  assertInvalid(
    { message: message({ parts: [{ kind: 'text', content: 'a' }] }) },
    'Invalid params: message.parts[0] must set exactly one of text, raw, url and data',
  );
});

test('step 3: a part that sets two of text, raw, url and data is refused', () => {
  const pairs: Record<string, unknown>[] = [
    { text: 'a', data: 1 },
    { text: 'a', raw: PNG, mediaType: 'image/png' },
    { url: 'https://x', raw: PNG },
    { text: 'a', raw: PNG, url: 'u', data: null },
  ];
  for (const part of pairs) {
    assertInvalid({ message: message({ parts: [part] }) }, 'Invalid params: message.parts[0] must set exactly one of text, raw, url and data');
  }
});

test('step 3: data: null sets data', () => {
  assertInvalid(
    { message: message({ parts: [{ text: 'a', data: null }] }) },
    'Invalid params: message.parts[0] must set exactly one of text, raw, url and data',
  );
  assert.equal(read({ message: message({ parts: [{ data: null }] }) }).text, '```data\nnull\n```');
});

test('step 2 before step 3: a wrong role answers before a part setting two kinds', () => {
  assertInvalid({ message: message({ role: 'user', parts: [{ text: 'a', data: 1 }] }) }, 'Invalid params: message.role must be ROLE_USER, not "user"');
});

test('step 3 runs over every part before step 4: a later part setting two kinds answers before an earlier non-string text', () => {
  assertInvalid(
    { message: message({ parts: [{ text: 5 }, { text: 'a', data: 1 }] }) },
    'Invalid params: message.parts[1] must set exactly one of text, raw, url and data',
  );
});

// ---------------------------------------------------------------------------------------------
// Step 4: text, raw, url, mediaType and filename are strings where present.

test('step 4: text, raw, url, mediaType and filename must be strings where present', () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ text: 5 }, 'text'],
    [{ text: null }, 'text'],
    [{ raw: [137, 80] }, 'raw'],
    [{ url: { href: 'x' } }, 'url'],
    [{ text: 'a', mediaType: 1 }, 'mediaType'],
    [{ data: 1, mediaType: null }, 'mediaType'],
    [{ data: 1, filename: false }, 'filename'],
  ];
  for (const [part, field] of cases) {
    assertInvalid({ message: message({ parts: [{ text: 'ok' }, part] }) }, `Invalid params: message.parts[1].${field} must be a string`);
  }
});

test('step 4: the fields of a part are checked text, raw, url, mediaType, then filename', () => {
  assertInvalid({ message: message({ parts: [{ text: 1, mediaType: 1, filename: 1 }] }) }, 'Invalid params: message.parts[0].text must be a string');
  assertInvalid({ message: message({ parts: [{ data: 1, mediaType: 1, filename: 1 }] }) }, 'Invalid params: message.parts[0].mediaType must be a string');
});

test('step 4: the first part with a wrong field answers', () => {
  assertInvalid(
    { message: message({ parts: [{ text: 'a' }, { data: 1, filename: 2 }, { text: 3 }] }) },
    'Invalid params: message.parts[1].filename must be a string',
  );
});

test('step 4 before step 5: a non-string text answers before a non-string taskId', () => {
  assertInvalid({ message: message({ taskId: 5, parts: [{ text: 5 }] }) }, 'Invalid params: message.parts[0].text must be a string');
});

// ---------------------------------------------------------------------------------------------
// Step 5: taskId and contextId, then referenceTaskIds.

test('step 5: taskId must be a string', () => {
  for (const taskId of [5, null, ['tsk_1'], {}]) assertInvalid({ message: message({ taskId }) }, 'Invalid params: message.taskId must be a string');
});

test('step 5: contextId must be a string', () => {
  for (const contextId of [5, null, true]) assertInvalid({ message: message({ contextId }) }, 'Invalid params: message.contextId must be a string');
});

test('step 5: referenceTaskIds must be an array of non-empty strings', () => {
  const expected = 'Invalid params: message.referenceTaskIds must be an array of non-empty strings';
  for (const referenceTaskIds of ['tsk_1', null, [''], ['tsk_1', ''], [1], [null], {}]) {
    assertInvalid({ message: message({ referenceTaskIds }) }, expected);
  }
});

test('step 5 order: taskId answers before contextId, contextId before referenceTaskIds', () => {
  assertInvalid({ message: message({ taskId: 1, contextId: 1, referenceTaskIds: [''] }) }, 'Invalid params: message.taskId must be a string');
  assertInvalid({ message: message({ contextId: 1, referenceTaskIds: [''] }) }, 'Invalid params: message.contextId must be a string');
});

test('step 5 before step 6: a non-string taskId answers before a door URI value that is not an object', () => {
  assertInvalid({ message: message({ taskId: 1, metadata: { [DOOR_EXTENSION_URI]: 'x' } }) }, 'Invalid params: message.taskId must be a string');
  assertInvalid(
    { message: message({ referenceTaskIds: [1], metadata: { [DOOR_EXTENSION_URI]: 'x' } }) },
    'Invalid params: message.referenceTaskIds must be an array of non-empty strings',
  );
});

// ---------------------------------------------------------------------------------------------
// Step 6: the door extension's key in metadata, then its forgetSession.

test("step 6: the door URI's value must be an object (seed message)", () => {
  for (const value of ['x', null, true, [{ forgetSession: true }], 1]) {
    assertInvalid(
      { message: message({ metadata: { [DOOR_EXTENSION_URI]: value } }) },
      'Invalid params: message.metadata["https://docs.murmur.nexus/reference/agent-card/#murmur-door-v1"] must be an object',
    );
  }
});

test('step 6: forgetSession must be a boolean (seed message)', () => {
  for (const forgetSession of ['true', 1, null, {}]) {
    assertInvalid(
      { message: message({ metadata: { [DOOR_EXTENSION_URI]: { forgetSession } } }) },
      'Invalid params: message.metadata["https://docs.murmur.nexus/reference/agent-card/#murmur-door-v1"].forgetSession must be a boolean',
    );
  }
});

test('step 6: forgetSession: true on a message naming a taskId is refused (seed message)', () => {
  assertInvalid(
    { message: message({ taskId: 'tsk_0199', metadata: { [DOOR_EXTENSION_URI]: { forgetSession: true } } }) },
    'Invalid params: forgetSession starts a new conversation, so it goes on a message that starts a task, not on one that continues task tsk_0199',
    PROCESS,
  );
});

test('step 6 before step 7: the door URI check answers before a returnImmediately that is not a boolean', () => {
  assertInvalid(
    { message: message({ metadata: { [DOOR_EXTENSION_URI]: 'x' } }), configuration: { returnImmediately: 'yes' } },
    `Invalid params: ${DOOR_KEY} must be an object`,
  );
  assertInvalid(
    { message: message({ metadata: { [DOOR_EXTENSION_URI]: { forgetSession: 'yes' } } }), configuration: { returnImmediately: 'yes' } },
    `Invalid params: ${DOOR_KEY}.forgetSession must be a boolean`,
  );
  assertInvalid(
    { message: message({ taskId: 'tsk_1', metadata: { [DOOR_EXTENSION_URI]: { forgetSession: true } } }), configuration: { returnImmediately: 1 } },
    'Invalid params: forgetSession starts a new conversation, so it goes on a message that starts a task, not on one that continues task tsk_1',
  );
});

test("step 6 before step 8: a malformed forgetSession answers -32602 before a url part's -32005", () => {
  assertInvalid(
    { message: message({ parts: [{ url: 'https://x/a.pdf' }], metadata: { [DOOR_EXTENSION_URI]: { forgetSession: 0 } } }) },
    `Invalid params: ${DOOR_KEY}.forgetSession must be a boolean`,
  );
  assertInvalid(
    { message: message({ taskId: 'tsk_9', parts: [{ url: 'https://x/a.pdf' }], metadata: { [DOOR_EXTENSION_URI]: { forgetSession: true } } }) },
    'Invalid params: forgetSession starts a new conversation, so it goes on a message that starts a task, not on one that continues task tsk_9',
  );
});

// ---------------------------------------------------------------------------------------------
// Step 7: configuration.returnImmediately.

test('step 7: a returnImmediately that is present, not null and not a boolean is refused (seed message)', () => {
  for (const returnImmediately of ['true', 1, 0, {}, []]) {
    assertInvalid({ message: message(), configuration: { returnImmediately } }, 'configuration.returnImmediately must be a boolean');
  }
});

// The seed lists no refusal for a configuration that is not an object (it reads only two of its members);
// the implementation refuses it -32602 at step 7, as ProtoJSON would. Pinned as the implementation's decision.
test('step 7: a configuration that is not an object is refused -32602, after step 6 and before step 8', () => {
  for (const configuration of ['x', 5, true, [{ returnImmediately: true }]]) {
    assertInvalid({ message: message(), configuration }, 'Invalid params: configuration must be an object');
  }
  assertInvalid({ message: message({ metadata: { [DOOR_EXTENSION_URI]: 1 } }), configuration: 'x' }, `Invalid params: ${DOOR_KEY} must be an object`);
  assertInvalid({ message: message({ parts: [{ url: 'https://x' }] }), configuration: 'x' }, 'Invalid params: configuration must be an object');
});

test("step 7 before step 8: a bad returnImmediately answers -32602 before a url part's -32005", () => {
  assertInvalid(
    { message: message({ parts: [{ url: 'https://x' }] }), configuration: { returnImmediately: 'no' } },
    'configuration.returnImmediately must be a boolean',
  );
});

// ---------------------------------------------------------------------------------------------
// Step 8: the first url part, or raw part that is not an image: -32005.

test('step 8: a url part is refused -32005, as in the seed example', () => {
  const error = refuse({ message: message({ parts: [{ text: 'read this' }, { url: 'https://example.com/a.pdf', mediaType: 'application/pdf' }] }) });
  assert.deepEqual(error, {
    code: -32005,
    message: 'message.parts[1] is a url part; this agent reads text parts, data parts and image raw parts only',
    data: [{ '@type': INFO, reason: 'CONTENT_TYPE_NOT_SUPPORTED', domain: 'a2a-protocol.org', metadata: { partIndex: '1', mediaType: 'application/pdf' } }],
  });
});

test('step 8: a url part with no mediaType names partIndex only', () => {
  const error = refuse({ message: message({ parts: [{ url: 'https://example.com/cat.png' }] }) });
  assert.equal(error.code, -32005);
  assert.equal(error.message, 'message.parts[0] is a url part; this agent reads text parts, data parts and image raw parts only');
  assert.deepEqual(error.data?.[0]?.metadata, { partIndex: '0' });
});

test('step 8: a url part is refused even with an image mediaType', () => {
  const error = refuse({ message: message({ parts: [{ url: 'https://example.com/cat.png', mediaType: 'image/png' }] }) });
  assert.equal(error.code, -32005);
  assert.deepEqual(error.data?.[0]?.metadata, { partIndex: '0', mediaType: 'image/png' });
});

test('step 8: a raw part that is not an image is refused -32005', () => {
  const error = refuse({ message: message({ parts: [{ text: 'a' }, { text: 'b' }, { raw: 'JVBERi0=', mediaType: 'application/pdf' }] }) });
  assert.equal(error.code, -32005);
  assert.equal(error.message, 'message.parts[2] is a raw part of media type application/pdf; this agent reads text parts, data parts and image raw parts only');
  assert.deepEqual(error.data, [
    { '@type': INFO, reason: 'CONTENT_TYPE_NOT_SUPPORTED', domain: 'a2a-protocol.org', metadata: { partIndex: '2', mediaType: 'application/pdf' } },
  ]);
});

test('step 8: a raw part with no mediaType is refused -32005, naming partIndex only', () => {
  const error = refuse({ message: message({ parts: [{ raw: PNG }] }) });
  assert.equal(error.code, -32005);
  assert.equal(error.message, 'message.parts[0] is a raw part with no media type; this agent reads text parts, data parts and image raw parts only');
  assert.deepEqual(error.data?.[0]?.metadata, { partIndex: '0' });
});

test('step 8: media types match exactly: image/PNG, image/svg+xml and image/jpg are not images the door reads', () => {
  for (const mediaType of ['image/PNG', 'image/svg+xml', 'image/jpg', 'image/png; charset=binary', '']) {
    const error = refuse({ message: message({ parts: [{ raw: PNG, mediaType }] }) });
    assert.equal(error.code, -32005, mediaType);
    assert.deepEqual(error.data?.[0]?.metadata, { partIndex: '0', mediaType });
  }
});

test('step 8: the first refused part answers', () => {
  const error = refuse({
    message: message({ parts: [{ raw: PNG, mediaType: 'image/png' }, { raw: 'AA==', mediaType: 'audio/wav' }, { url: 'https://x' }] }),
  });
  assert.deepEqual(error.data?.[0]?.metadata, { partIndex: '1', mediaType: 'audio/wav' });
});

test("step 8 before step 9: a url part answers -32005 before taskPushNotificationConfig's -32003", () => {
  const error = refuse({ message: message({ parts: [{ url: 'https://x' }] }), configuration: { taskPushNotificationConfig: { url: 'https://hook' } } });
  assert.equal(error.code, -32005);
});

test('step 8 before step 11: a url part answers -32005 before an earlier broken image part', () => {
  const error = refuse({ message: message({ parts: [{ raw: '!!!', mediaType: 'image/png' }, { url: 'https://x' }] }) });
  assert.equal(error.code, -32005);
  assert.deepEqual(error.data?.[0]?.metadata, { partIndex: '1' });
});

// ---------------------------------------------------------------------------------------------
// Step 9: configuration.taskPushNotificationConfig present and not null: -32003.

test('step 9: a taskPushNotificationConfig that is present and not null is refused -32003', () => {
  for (const taskPushNotificationConfig of [{ url: 'https://hook' }, {}, 'x', false]) {
    assert.deepEqual(refuse({ message: message(), configuration: { taskPushNotificationConfig } }), {
      code: -32003,
      message: 'push notifications are not supported by this agent',
      data: [{ '@type': INFO, reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED', domain: 'a2a-protocol.org', metadata: {} }],
    });
  }
});

test('step 9: taskPushNotificationConfig null is read as absent', () => {
  read({ message: message(), configuration: { taskPushNotificationConfig: null } });
});

test('step 9 before step 10: push answers -32003 before forgetSession on a capsule not on transport: process', () => {
  const error = refuse({
    message: message({ metadata: { [DOOR_EXTENSION_URI]: { forgetSession: true } } }),
    configuration: { taskPushNotificationConfig: { url: 'https://hook' } },
  });
  assert.equal(error.code, -32003);
});

// ---------------------------------------------------------------------------------------------
// Step 10: forgetSession: true to a capsule not on inference.transport: process.

test('step 10: forgetSession: true on transport: http is refused -32602 (seed message)', () => {
  assert.deepEqual(refuse({ message: message({ metadata: { [DOOR_EXTENSION_URI]: { forgetSession: true } } }) }), {
    code: -32602,
    message: 'forgetSession asks this capsule to forget the harness session this context names, and only a capsule on inference.transport: process has one',
  });
});

test('step 10 before step 11: forgetSession on transport: http answers before a broken image part', () => {
  assertInvalid(
    { message: message({ parts: [{ raw: '!!!', mediaType: 'image/png' }], metadata: { [DOOR_EXTENSION_URI]: { forgetSession: true } } }) },
    'forgetSession asks this capsule to forget the harness session this context names, and only a capsule on inference.transport: process has one',
  );
});

test('step 6 before step 10: forgetSession: true with a taskId on transport: http is the taskId refusal', () => {
  assertInvalid(
    { message: message({ taskId: 'tsk_2', metadata: { [DOOR_EXTENSION_URI]: { forgetSession: true } } }) },
    'Invalid params: forgetSession starts a new conversation, so it goes on a message that starts a task, not on one that continues task tsk_2',
  );
});

// ---------------------------------------------------------------------------------------------
// Every refusal is one of -32602, -32005 and -32003.

test('the -32602 refusals carry no data', () => {
  const error = refuse({ message: message({ role: 'ROLE_AGENT' }) });
  assert.equal(error.code, -32602);
  assert.equal('data' in error, false);
});

test('a data part nested past what the door can render is refused -32602 naming it, not thrown', () => {
  let deep: JsonValue = [];
  for (let i = 0; i < 100_000; i++) deep = [deep];
  assertInvalid({ message: message({ parts: [{ text: 'a' }, { data: deep }] }) }, 'Invalid params: message.parts[1].data is nested too deeply to read');
});
