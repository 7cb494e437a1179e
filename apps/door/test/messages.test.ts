/**
 * Reading params.message (seed 000, "Messages", "Parts", "Image parts", "Referenced tasks"): the eleven checks
 * in their order, the first failure answering; a refused message starts nothing; what the agent reads.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type DoorProcess, makeCapsule, manifestYaml, runDoor } from './support/door-process.js';
import { rpc, waitForState } from './support/rpc.js';
import { assertRpcError, envelope, type ExpectedError, PUSH_NOT_SUPPORTED, postRaw, traceRecords } from './support/wire.js';

const DOOR_URI = 'https://docs.murmur.nexus/reference/agent-card/#murmur-door-v1';
const DOOR_KEY = `message.metadata[${JSON.stringify(DOOR_URI)}]`;

// The agent's text comes back as the response, so a test reads exactly what the agent received.
const SCRIPT = `
rules:
  - match: '^zzsleep'
    turns:
      - sleep_ms: 60000
        answer: slept
  - match: '^zzfour'
    turns:
      - answer: four
  - match: '^zzbreak'
    turns:
      - fail: the driver failed
  - match: '^zzmultiline'
    turns:
      - fail: "first line\\n  second line"
default:
  turns:
    - answer: "{{task.text}}"
`;

/** A 1×1 PNG, 70 bytes. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const b64 = (bytes: number[] | string) => Buffer.from(typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : Uint8Array.from(bytes)).toString('base64');
const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

let door: DoorProcess;
before(async () => {
  const manifest = manifestYaml({ name: 'messages', acceptance: 'queue', extra: 'context:\n  images:\n    max_bytes: 100\n    max_per_turn: 1' });
  door = await runDoor(makeCapsule(manifest, SCRIPT));
});
after(async () => {
  await door?.stop();
});

let count = 0;
const msg = (extra: Record<string, unknown> = {}, parts: unknown = [{ text: 'hello' }]) => ({ messageId: `m-${++count}`, role: 'ROLE_USER', parts, ...extra });

async function taskCounts(): Promise<{ total: number; starts: number }> {
  const list = await rpc(door.url, 'ListTasks', {});
  return { total: list.json.result.totalSize, starts: traceRecords(door.recordsDir).filter((r) => r.type === 'task_start').length };
}

/** Sends SendMessage with `params`, asserts the refusal, and that nothing started: no task listed, no task_start traced. */
async function refused(params: unknown, expected: ExpectedError): Promise<void> {
  const before = await taskCounts();
  const answer = await postRaw(door.url, envelope('SendMessage', params, 'r'));
  assertRpcError(answer, { id: 'r', ...expected });
  assert.deepEqual(await taskCounts(), before, 'a refused message starts no task and writes no trace record');
}

const invalid = (message: string): ExpectedError => ({ code: -32602, message: `Invalid params: ${message}`, metadata: null });

/** Sends SendMessage and returns the settled task. */
async function accepted(params: unknown, headers?: Record<string, string>) {
  const answer = await postRaw(door.url, envelope('SendMessage', params, 'a'), headers);
  assert.equal(answer.status, 200);
  assert.ok(answer.json.result?.task, `not accepted: ${answer.text}`);
  return { task: answer.json.result.task, answer };
}

const responseText = (task: { artifacts?: Array<{ artifactId: string; parts: Array<{ text: string }> }> }) =>
  task.artifacts?.find((a) => a.artifactId === 'response')?.parts[0].text;

describe('the checks, in order', () => {
  test('1. params.message is an object; a bare message as params is refused', async () => {
    await refused(msg(), invalid('params.message must be an object'));
    for (const message of ['bare', null, [], 5]) await refused({ message }, invalid('params.message must be an object'));
    await refused({}, invalid('params.message must be an object'));
  });

  test('2. messageId, role, then parts', async () => {
    await refused({ message: { role: 'ROLE_USER', parts: [{ text: 'x' }] } }, invalid('message.messageId must be a non-empty string'));
    await refused({ message: msg({ messageId: '' }) }, invalid('message.messageId must be a non-empty string'));
    await refused({ message: msg({ messageId: 5 }) }, invalid('message.messageId must be a non-empty string'));
    // ProtoJSON camelCase only: message_id is not messageId.
    await refused({ message: { message_id: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }] } }, invalid('message.messageId must be a non-empty string'));
    await refused({ message: msg({ role: 'user' }) }, invalid('message.role must be ROLE_USER, not "user"'));
    await refused({ message: msg({ role: 'ROLE_AGENT' }) }, invalid('message.role must be ROLE_USER, not "ROLE_AGENT"'));
    await refused({ message: msg({ role: 1 }) }, invalid('message.role must be ROLE_USER, not 1'));
    await refused({ message: { messageId: 'm', parts: [{ text: 'x' }] } }, invalid('message.role must be ROLE_USER, not null'));
    for (const parts of [undefined, [], {}, 'text', null]) {
      const message = msg({}, parts);
      if (parts === undefined) delete (message as Record<string, unknown>).parts;
      await refused({ message }, invalid('message.parts must be a non-empty array'));
    }
    // Order inside step 2.
    await refused({ message: { role: 'user', parts: [] } }, invalid('message.messageId must be a non-empty string'));
    await refused({ message: { messageId: 'm', role: 'user', parts: [] } }, invalid('message.role must be ROLE_USER, not "user"'));
  });

  test('3. every part sets exactly one of text, raw, url and data', async () => {
    await refused({ message: msg({}, [{}]) }, invalid('message.parts[0] must set exactly one of text, raw, url and data'));
    await refused({ message: msg({}, [{ text: 'a' }, { text: 'b', data: 1 }]) }, invalid('message.parts[1] must set exactly one of text, raw, url and data'));
    await refused(
      { message: msg({}, [{ raw: PNG, url: 'http://x', mediaType: 'image/png' }]) },
      invalid('message.parts[0] must set exactly one of text, raw, url and data'),
    );
    await refused({ message: msg({}, [{ mediaType: 'text/plain' }]) }, invalid('message.parts[0] must set exactly one of text, raw, url and data'));
    await refused({ message: msg({}, [{ text: 'a' }, 'b']) }, invalid('message.parts[1] must be an object'));
    // ProtoJSON spelling only: the 0.3 kind-tagged part is not a part.
    await refused({ message: msg({}, [{ kind: 'text', content: 'hi' }]) }, invalid('message.parts[0] must set exactly one of text, raw, url and data'));
  });

  test('4. text, raw, url, mediaType and filename are strings where present', async () => {
    await refused({ message: msg({}, [{ text: 5 }]) }, invalid('message.parts[0].text must be a string'));
    await refused({ message: msg({}, [{ text: null }]) }, invalid('message.parts[0].text must be a string'));
    await refused({ message: msg({}, [{ raw: 5, mediaType: 'image/png' }]) }, invalid('message.parts[0].raw must be a string'));
    await refused({ message: msg({}, [{ url: {} }]) }, invalid('message.parts[0].url must be a string'));
    await refused({ message: msg({}, [{ text: 'a' }, { data: 1, mediaType: 5 }]) }, invalid('message.parts[1].mediaType must be a string'));
    await refused({ message: msg({}, [{ data: {}, filename: ['x'] }]) }, invalid('message.parts[0].filename must be a string'));
  });

  test('5. taskId and contextId, then referenceTaskIds', async () => {
    await refused({ message: msg({ taskId: 5 }) }, invalid('message.taskId must be a string'));
    await refused({ message: msg({ taskId: null }) }, invalid('message.taskId must be a string'));
    await refused({ message: msg({ contextId: 5 }) }, invalid('message.contextId must be a string'));
    await refused({ message: msg({ taskId: 5, contextId: 5 }) }, invalid('message.taskId must be a string'));
    for (const referenceTaskIds of ['tsk_x', [''], [5], ['tsk_a', null], {}]) {
      await refused({ message: msg({ referenceTaskIds }) }, invalid('message.referenceTaskIds must be an array of non-empty strings'));
    }
    const seventeen = Array.from({ length: 17 }, (_, i) => `tsk_${i}`);
    await refused({ message: msg({ referenceTaskIds: seventeen }) }, invalid('message.referenceTaskIds names 17 distinct tasks; at most 16'));
    await refused({ message: msg({ contextId: 5, referenceTaskIds: seventeen }) }, invalid('message.contextId must be a string'));
  });

  test('6. the door extension key in metadata, then its forgetSession', async () => {
    for (const value of ['x', [], null, true]) {
      await refused({ message: msg({ metadata: { [DOOR_URI]: value } }) }, invalid(`${DOOR_KEY} must be an object`));
    }
    // The seed's exact texts.
    await refused(
      { message: msg({ metadata: { [DOOR_URI]: 'x' } }) },
      invalid('message.metadata["https://docs.murmur.nexus/reference/agent-card/#murmur-door-v1"] must be an object'),
    );
    for (const forgetSession of ['yes', 1, null, {}]) {
      await refused(
        { message: msg({ metadata: { [DOOR_URI]: { forgetSession } } }) },
        invalid('message.metadata["https://docs.murmur.nexus/reference/agent-card/#murmur-door-v1"].forgetSession must be a boolean'),
      );
    }
    await refused(
      { message: msg({ taskId: 'tsk_x', metadata: { [DOOR_URI]: { forgetSession: true } } }) },
      invalid('forgetSession starts a new conversation, so it goes on a message that starts a task, not on one that continues task tsk_x'),
    );
  });

  test('7. configuration.returnImmediately that is present, not null and not a boolean', async () => {
    for (const returnImmediately of ['yes', 1, 0, {}, []]) {
      await refused(
        { message: msg(), configuration: { returnImmediately } },
        { code: -32602, message: 'configuration.returnImmediately must be a boolean', metadata: null },
      );
    }
  });

  test('8. the first url part, or raw part that is not an image: -32005 with partIndex and mediaType', async () => {
    await refused(
      { message: msg({}, [{ text: 'summarise' }, { url: 'https://example.com/a.pdf', mediaType: 'application/pdf' }]) },
      {
        code: -32005,
        message: 'message.parts[1] is a url part; this agent reads text parts, data parts and image raw parts only',
        reason: 'CONTENT_TYPE_NOT_SUPPORTED',
        metadata: { partIndex: '1', mediaType: 'application/pdf' },
      },
    );
    await refused(
      { message: msg({}, [{ url: 'https://example.com/x' }]) },
      { code: -32005, reason: 'CONTENT_TYPE_NOT_SUPPORTED', metadata: { partIndex: '0' } },
    );
    await refused(
      { message: msg({}, [{ text: 'a' }, { text: 'b' }, { raw: b64('%PDF-1.7'), mediaType: 'application/pdf' }, { url: 'https://x' }]) },
      { code: -32005, message: /^message\.parts\[2\]/, metadata: { partIndex: '2', mediaType: 'application/pdf' } },
    );
    await refused({ message: msg({}, [{ raw: b64('hello') }]) }, { code: -32005, message: /^message\.parts\[0\]/, metadata: { partIndex: '0' } });
    // image/svg+xml is not one of the four image types.
    await refused(
      { message: msg({}, [{ raw: b64('<svg/>'), mediaType: 'image/svg+xml' }]) },
      { code: -32005, metadata: { partIndex: '0', mediaType: 'image/svg+xml' } },
    );
  });

  test('9. configuration.taskPushNotificationConfig present and not null: -32003', async () => {
    await refused({ message: msg(), configuration: { taskPushNotificationConfig: { url: 'https://hook.example/' } } }, PUSH_NOT_SUPPORTED);
    await refused({ message: msg(), configuration: { taskPushNotificationConfig: {} } }, PUSH_NOT_SUPPORTED);
    await refused({ message: msg(), configuration: { taskPushNotificationConfig: 'x' } }, PUSH_NOT_SUPPORTED);
  });

  test('10. forgetSession: true to a capsule not on inference.transport: process', async () => {
    await refused(
      { message: msg({ metadata: { [DOOR_URI]: { forgetSession: true } } }) },
      {
        code: -32602,
        message: 'forgetSession asks this capsule to forget the harness session this context names, and only a capsule on inference.transport: process has one',
        metadata: null,
      },
    );
  });

  test('11. image parts: not base64, wrong first bytes, over max_bytes, over max_per_turn, on a continuing message', async () => {
    const image = (raw: string, mediaType = 'image/png') => ({ raw, mediaType });
    await refused({ message: msg({}, [image('!!!not base64!!!')]) }, invalid('message.parts[0].raw is not base64'));
    await refused({ message: msg({}, [{ text: 'see' }, image('abcde')]) }, invalid('message.parts[1].raw is not base64'));
    await refused(
      { message: msg({}, [image(b64('GIF89a-not-a-png'))]) },
      invalid('message.parts[0] is not an image/png image: its first bytes are not those of image/png'),
    );
    await refused(
      { message: msg({}, [image(PNG, 'image/jpeg')]) },
      invalid('message.parts[0] is not an image/jpeg image: its first bytes are not those of image/jpeg'),
    );
    await refused(
      { message: msg({}, [image(b64([...PNG_MAGIC, ...new Array(200).fill(0)]))]) },
      invalid('message.parts[0] is 208 bytes, over context.images.max_bytes 100'),
    );
    await refused(
      { message: msg({}, [image(PNG), { text: 'two' }, image(PNG)]) },
      invalid('message.parts[2] is image 2 of this message, over context.images.max_per_turn 1'),
    );
    await refused(
      { message: msg({ taskId: 'tsk_nope' }, [image(PNG)]) },
      invalid('message.parts[0] is an image on a message that continues task tsk_nope; images go on the message that starts a task'),
    );
    // In part order: the first image's refusal answers.
    await refused(
      { message: msg({}, [image(b64('nope')), image('%%%')]) },
      invalid('message.parts[0] is not an image/png image: its first bytes are not those of image/png'),
    );
  });
});

describe('the first failure answers', () => {
  test('message fields (2, 4, 5) before a url part (8)', async () => {
    const url = { url: 'https://x/a.pdf', mediaType: 'application/pdf' };
    await refused({ message: { role: 'ROLE_USER', parts: [url] } }, invalid('message.messageId must be a non-empty string'));
    await refused({ message: msg({}, [url, { text: 5 }]) }, invalid('message.parts[1].text must be a string'));
    await refused({ message: msg({ taskId: 5 }, [url]) }, invalid('message.taskId must be a string'));
  });
  test('exactly-one (3) is checked across every part before string types (4)', async () => {
    await refused({ message: msg({}, [{ text: 5 }, {}]) }, invalid('message.parts[1] must set exactly one of text, raw, url and data'));
  });
  test('forgetSession (6) before returnImmediately (7), and both before a url part (8)', async () => {
    await refused(
      { message: msg({ metadata: { [DOOR_URI]: { forgetSession: 'x' } } }, [{ url: 'https://x' }]), configuration: { returnImmediately: 'x' } },
      invalid(`${DOOR_KEY}.forgetSession must be a boolean`),
    );
    await refused(
      { message: msg({}, [{ url: 'https://x' }]), configuration: { returnImmediately: 'x' } },
      { code: -32602, message: 'configuration.returnImmediately must be a boolean' },
    );
    await refused(
      { message: msg({ taskId: 'tsk_x', metadata: { [DOOR_URI]: { forgetSession: true } } }, [{ url: 'https://x' }]) },
      invalid('forgetSession starts a new conversation, so it goes on a message that starts a task, not on one that continues task tsk_x'),
    );
  });
  test('a url part (8) before push (9), push (9) before forgetSession (10), forgetSession (10) before images (11)', async () => {
    await refused(
      { message: msg({}, [{ url: 'https://x' }]), configuration: { taskPushNotificationConfig: { url: 'https://hook' } } },
      { code: -32005, metadata: { partIndex: '0' } },
    );
    await refused(
      { message: msg({ metadata: { [DOOR_URI]: { forgetSession: true } } }), configuration: { taskPushNotificationConfig: { url: 'https://hook' } } },
      PUSH_NOT_SUPPORTED,
    );
    await refused(
      { message: msg({ metadata: { [DOOR_URI]: { forgetSession: true } } }, [{ raw: 'not base64!', mediaType: 'image/png' }]) },
      { code: -32602, message: /^forgetSession asks this capsule/ },
    );
  });
  test('every refusal comes before the door looks up a task', async () => {
    await refused({ message: msg({ taskId: 'tsk_nope' }, [{ url: 'https://x' }]) }, { code: -32005, metadata: { partIndex: '0' } });
    await refused({ message: msg({ taskId: 'tsk_nope' }), configuration: { taskPushNotificationConfig: {} } }, PUSH_NOT_SUPPORTED);
    await refused(
      { message: msg({ taskId: 'tsk_nope' }), configuration: { returnImmediately: 1 } },
      { code: -32602, message: 'configuration.returnImmediately must be a boolean' },
    );
    // With nothing else wrong, the lookup answers.
    await refused({ message: msg({ taskId: 'tsk_nope' }) }, { code: -32001, reason: 'TASK_NOT_FOUND', metadata: { taskId: 'tsk_nope' } });
  });
});

describe('what is accepted, and what the agent reads', () => {
  test('unknown fields, extensions, other metadata keys and a metadata that is not an object are ignored', async () => {
    for (const extra of [
      { extensions: 5, unknownField: { a: 1 } },
      { metadata: 'not an object' },
      { metadata: { 'https://example.com/other': { forgetSession: 'x' } } },
      { metadata: [1, 2] },
    ]) {
      const { task, answer } = await accepted({
        message: msg(extra, [{ text: 'ignored fields' }]),
        configuration: { returnImmediately: null, somethingElse: 1 },
      });
      assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
      assert.equal(answer.headers['a2a-extensions'], undefined, 'no extension used, none named');
    }
  });

  test('a message whose metadata holds the door URI names it in A2A-Extensions', async () => {
    const { task, answer } = await accepted({ message: msg({ metadata: { [DOOR_URI]: { forgetSession: false, other: 1 } } }, [{ text: 'door ext' }]) });
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    assert.equal(answer.headers['a2a-extensions'], DOOR_URI);
  });

  test('taskId "" names no task, and 16 distinct references (17 with a duplicate) are accepted', async () => {
    const refs = [...Array.from({ length: 16 }, (_, i) => `tsk_r${i}`), 'tsk_r0'];
    const { task } = await accepted({ message: msg({ taskId: '', referenceTaskIds: refs }, [{ text: 'many refs' }]) });
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    const start = traceRecords(door.recordsDir).find((r) => r.type === 'task_start' && r.task_id === task.id)!;
    assert.deepEqual(start.references, refs.slice(0, 16));
  });

  test('text parts are joined by a newline, whatever their mediaType', async () => {
    const { task } = await accepted({
      message: msg({}, [{ text: 'first' }, { text: '# second', mediaType: 'text/markdown' }, { text: 'third', metadata: { x: 1 } }]),
    });
    assert.equal(responseText(task), 'first\n# second\nthird');
  });

  test('a data part reaches the agent fenced exactly as the seed shows', async () => {
    const { task } = await accepted({ message: msg({}, [{ text: 'summarise' }, { data: { note: 'a ``` b', rows: [1, 2] }, mediaType: 'application/json' }]) });
    assert.equal(responseText(task), 'summarise\n````data media-type=application/json\n{\n  "note": "a ``` b",\n  "rows": [\n    1,\n    2\n  ]\n}\n````');
  });

  test('data parts: null, scalars, filename, and whitespace, backticks and = in the label become _', async () => {
    const { task } = await accepted({
      message: msg({}, [{ data: null }, { data: 'x ```` y', filename: 'my file`=.json' }, { data: 42, mediaType: 'application/vnd x=1', filename: 'n.json' }]),
    });
    assert.equal(
      responseText(task),
      ['```data\nnull\n```', '`````data filename=my_file__.json\n"x ```` y"\n`````', '```data media-type=application/vnd_x_1 filename=n.json\n42\n```'].join(
        '\n',
      ),
    );
  });

  test('a real PNG is accepted, left out of the text, and listed under attachments on task_start', async () => {
    const { task } = await accepted({ message: msg({}, [{ text: 'look at this' }, { raw: PNG, mediaType: 'image/png' }]) });
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    assert.equal(responseText(task), 'look at this');
    const start = traceRecords(door.recordsDir).find((r) => r.type === 'task_start' && r.task_id === task.id)!;
    assert.deepEqual(start.attachments, [{ part_index: 1, media_type: 'image/png', bytes: 70 }]);
  });

  test('a message carrying only an image starts a task; each image type is checked by its first bytes', async () => {
    const images: Array<[string, string]> = [
      [PNG, 'image/png'],
      [b64([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46]), 'image/jpeg'],
      [b64('GIF89a\x01\x00\x01\x00\x00\x00\x00;'), 'image/gif'],
      [b64('RIFF\x1a\x00\x00\x00WEBPVP8L'), 'image/webp'],
      // URL-safe base64 without padding is base64 too.
      [PNG.replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_'), 'image/png'],
    ];
    for (const [raw, mediaType] of images) {
      const { task } = await accepted({ message: msg({}, [{ raw, mediaType }]) });
      assert.equal(task.status.state, 'TASK_STATE_COMPLETED', `${mediaType}: ${JSON.stringify(task)}`);
      const start = traceRecords(door.recordsDir).find((r) => r.type === 'task_start' && r.task_id === task.id)!;
      assert.equal((start.attachments as Array<{ media_type: string }>)[0].media_type, mediaType);
    }
  });
});

describe('referenced tasks', () => {
  test('the block after the parts, as each task stood when the message arrived', async () => {
    const four = (await accepted({ message: msg({}, [{ text: 'zzfour' }]) })).task;
    assert.equal(four.status.state, 'TASK_STATE_COMPLETED');
    const broken = (await accepted({ message: msg({}, [{ text: 'zzbreak' }]) })).task;
    assert.equal(broken.status.state, 'TASK_STATE_FAILED');
    const multi = (await accepted({ message: msg({}, [{ text: 'zzmultiline' }]) })).task;
    assert.equal(multi.status.state, 'TASK_STATE_FAILED');
    const sleeper = (await accepted({ message: msg({}, [{ text: 'zzsleep' }]), configuration: { returnImmediately: true } })).task;
    await waitForState(door.url, sleeper.id, 'TASK_STATE_WORKING');

    // Queued behind the sleeper: the block is rendered on arrival, while the sleeper works.
    const refs = [four.id, broken.id, multi.id, sleeper.id, 'tsk_nope', four.id];
    const referring = (await accepted({ message: msg({ referenceTaskIds: refs }, [{ text: 'summarise refs' }]), configuration: { returnImmediately: true } }))
      .task;
    await rpc(door.url, 'CancelTask', { id: sleeper.id });
    const done = await waitForState(door.url, referring.id, 'TASK_STATE_COMPLETED');
    assert.equal(
      responseText(done),
      [
        'summarise refs',
        '',
        'Referenced tasks:',
        `- ${four.id}: completed`,
        '```response',
        'four',
        '```',
        `- ${broken.id}: failed: the driver failed`,
        `- ${multi.id}: failed: first line second line`,
        `- ${sleeper.id}: working`,
        '- tsk_nope: not a task this capsule holds',
      ].join('\n'),
    );
    const start = traceRecords(door.recordsDir).find((r) => r.type === 'task_start' && r.task_id === referring.id)!;
    assert.deepEqual(start.references, [four.id, broken.id, multi.id, sleeper.id, 'tsk_nope']);

    // Once canceled, the sleeper reads as an ended task with its final status message.
    const later = (await accepted({ message: msg({ referenceTaskIds: [sleeper.id] }, [{ text: 'again' }]) })).task;
    const canceled = (await rpc(door.url, 'GetTask', { id: sleeper.id })).json.result;
    assert.equal(canceled.status.state, 'TASK_STATE_CANCELED');
    const line = canceled.status.message ? `- ${sleeper.id}: canceled: ${canceled.status.message.parts[0].text}` : `- ${sleeper.id}: canceled`;
    assert.equal(responseText(later), `again\n\nReferenced tasks:\n${line}`);
  });

  test('a message without referenceTaskIds gets no block', async () => {
    const { task } = await accepted({ message: msg({ referenceTaskIds: [] }, [{ text: 'no refs' }]) });
    assert.equal(responseText(task), 'no refs');
  });
});
