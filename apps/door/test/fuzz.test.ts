/**
 * Malformed and mutated requests against one real door. Whatever arrives, the door answers HTTP 200 with a
 * JSON-RPC 2.0 envelope (seed 000: "Every answer from step 6 on is a JSON-RPC response with HTTP status 200"), or
 * the documented 404 for a request that is not a POST / with a JSON body; never a 5xx, never a body that is not
 * JSON, never an internal error; and it still answers GetTask afterwards.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type DoorProcess, makeCapsule, manifestYaml, runDoor } from './support/door-process.js';
import { rpc } from './support/rpc.js';
import { assertRpcError, envelope, httpRequest, postRaw, prng, type RawAnswer, STANDARD } from './support/wire.js';

const SCRIPT = `
default:
  turns:
    - answer: ok
`;

/** Every code the door may answer a malformed request with; -32603 (an internal failure) is not among them. */
const ALLOWED_CODES = new Set([-32700, -32600, -32601, -32602, -32001, -32002, -32003, -32004, -32005, -32009]);

let door: DoorProcess;
let knownTaskId: string;

before(async () => {
  // Small image limits keep the body limit at its floor (8 MiB), so a 9 MB body is over it.
  door = await runDoor(
    makeCapsule(manifestYaml({ name: 'fuzz', acceptance: 'queue', extra: 'context:\n  images:\n    max_bytes: 100\n    max_per_turn: 1' }), SCRIPT),
  );
  const first = await rpc(door.url, 'SendMessage', { message: { messageId: 'm-known', role: 'ROLE_USER', parts: [{ text: 'known' }] } });
  knownTaskId = first.json.result.task.id;
});
after(async () => {
  await door?.stop();
});

/** The one property every answer must have. */
function assertEnvelope(answer: RawAnswer, what: string): void {
  const context = `${what}: HTTP ${answer.status} ${answer.text.slice(0, 300)}`;
  assert.ok(answer.status < 500, `never a 5xx: ${context}`);
  assert.match(String(answer.headers['content-type']), /^application\/json/, context);
  assert.ok(answer.json !== undefined, `the body is JSON: ${context}`);
  if (answer.status === 404) {
    assert.equal(answer.json.error, 'not_found', context);
    return;
  }
  assert.equal(answer.status, 200, context);
  const body = answer.json;
  assert.equal(body.jsonrpc, '2.0', context);
  assert.ok('id' in body, context);
  assert.ok(body.id === null || typeof body.id === 'string' || Number.isSafeInteger(body.id), context);
  assert.notEqual('result' in body, 'error' in body, `exactly one of result and error: ${context}`);
  if ('error' in body) {
    assert.ok(Number.isInteger(body.error.code), context);
    assert.equal(typeof body.error.message, 'string', context);
    assert.ok(ALLOWED_CODES.has(body.error.code), `an expected code: ${context}`);
  }
}

async function assertStillServes(): Promise<void> {
  assert.equal(door.child.exitCode, null, `the door is still running: ${door.stderr()}`);
  const answer = await rpc(door.url, 'GetTask', { id: knownTaskId });
  assert.equal(answer.status, 200);
  assert.equal(answer.json.result.id, knownTaskId);
}

const BAD_VALUES: unknown[] = [null, true, false, 0, -1, 1.5, 1e308, '', 'x', '\u0000', [], [null], {}, { x: {} }];

function baseParams(): Record<string, Record<string, unknown>> {
  return {
    SendMessage: {
      message: {
        messageId: 'm-fuzz',
        role: 'ROLE_USER',
        parts: [{ text: 'hi', mediaType: 'text/plain', filename: 'a.txt', metadata: {} }],
        contextId: 'ctx_fuzz',
        taskId: '',
        referenceTaskIds: [],
        metadata: {},
        extensions: [],
      },
      configuration: { returnImmediately: true, acceptedOutputModes: [], historyLength: 0 },
    },
    GetTask: { id: knownTaskId, historyLength: 1 },
    ListTasks: {
      contextId: '',
      status: 'TASK_STATE_COMPLETED',
      pageSize: 5,
      pageToken: '',
      statusTimestampAfter: '2020-01-01T00:00:00Z',
      includeArtifacts: true,
      historyLength: 0,
    },
    CancelTask: { id: knownTaskId, metadata: {} },
  };
}

/** Every member path of a value, objects and arrays alike, as [key, key, …]. */
function memberPaths(value: unknown, prefix: Array<string | number> = []): Array<Array<string | number>> {
  if (Array.isArray(value)) return value.flatMap((v, i) => [[...prefix, i], ...memberPaths(v, [...prefix, i])]);
  if (typeof value === 'object' && value !== null) return Object.entries(value).flatMap(([k, v]) => [[...prefix, k], ...memberPaths(v, [...prefix, k])]);
  return [];
}

function setAt(root: unknown, at: Array<string | number>, value: unknown): void {
  let node = root as Record<string | number, unknown>;
  for (const key of at.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[at.at(-1)!] = value;
}

describe('wrong types at every member of the params', () => {
  for (const method of ['SendMessage', 'GetTask', 'ListTasks', 'CancelTask']) {
    test(method, async () => {
      const paths = [...memberPaths(baseParams()[method]), ['tenant']];
      for (const at of paths) {
        for (const bad of BAD_VALUES) {
          const params = structuredClone(baseParams()[method]);
          setAt(params, at, bad);
          const answer = await postRaw(door.url, envelope(method, params, 'f'));
          assertEnvelope(answer, `${method} ${at.join('.')} = ${JSON.stringify(bad)}`);
        }
      }
      await assertStillServes();
    });
  }
});

describe('malformed bodies', () => {
  test('truncated JSON at every length of a valid request is -32700 (or 404 when nothing is left)', async () => {
    const full = JSON.stringify(envelope('SendMessage', baseParams().SendMessage, 1));
    for (let n = 0; n < full.length; n += 7) {
      const answer = await postRaw(door.url, full.slice(0, n));
      assertEnvelope(answer, `truncated to ${n}`);
      if (n === 0) assert.equal(answer.status, 404);
      else assertRpcError(answer, { ...STANDARD.parse, id: null });
    }
  });

  test('deeply nested arrays, as the body and inside params', async () => {
    for (const depth of [1_000, 100_000, 1_000_000]) {
      const nested = '['.repeat(depth) + ']'.repeat(depth);
      assertRpcError(await postRaw(door.url, nested), { ...STANDARD.invalidRequest, id: null });
      assertEnvelope(await postRaw(door.url, `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"tsk_x","junk":${nested}}}`), `junk depth ${depth}`);
      assertEnvelope(await postRaw(door.url, `{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{"contextId":${nested}}}`), `contextId depth ${depth}`);
      assertEnvelope(
        await postRaw(
          door.url,
          `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"}],"metadata":${nested}}}}`,
        ),
        `metadata depth ${depth}`,
      );
    }
  });

  test('a data part nested too deeply to render is refused -32602, starting nothing', async () => {
    const before = (await rpc(door.url, 'ListTasks', {})).json.result.totalSize;
    for (const depth of [20_000, 1_000_000]) {
      const nested = '['.repeat(depth) + ']'.repeat(depth);
      const answer = await postRaw(
        door.url,
        `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"a"},{"data":${nested}}]}}}`,
      );
      assertRpcError(answer, { code: -32602, id: 1, message: 'Invalid params: message.parts[1].data is nested too deeply to read' });
    }
    assert.equal((await rpc(door.url, 'ListTasks', {})).json.result.totalSize, before);
  });

  test('a 5 MB string as the method, an id, a messageId and a text part', async () => {
    const big = 'x'.repeat(5 * 1024 * 1024);
    assertRpcError(await postRaw(door.url, envelope(big, {}, 1)), { ...STANDARD.methodNotFound, id: 1 });
    assertRpcError(await postRaw(door.url, envelope('GetTask', { id: big }, 2)), { code: -32001, id: 2 });
    assertEnvelope(await postRaw(door.url, envelope('ListTasks', { contextId: big }, 3)), 'big contextId');
    assertEnvelope(await postRaw(door.url, envelope('ListTasks', { pageToken: big }, 4)), 'big pageToken');
    const sent = await postRaw(
      door.url,
      envelope(
        'SendMessage',
        { message: { messageId: big.slice(0, 1024 * 1024), role: 'ROLE_USER', parts: [{ text: big }] }, configuration: { returnImmediately: true } },
        5,
      ),
    );
    assertEnvelope(sent, 'big text');
    assert.ok(sent.json.result?.task?.id, sent.text.slice(0, 200));
    await assertStillServes();
  });

  test('invalid UTF-8 and NUL bytes', async () => {
    const bodies: Array<[string, Buffer]> = [
      ['invalid UTF-8 outside strings', Buffer.from([0x7b, 0xff, 0xfe, 0x7d])],
      ['invalid UTF-8 in the method', Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":1,"method":"Get'), Buffer.from([0xc3, 0x28]), Buffer.from('Task"}')])],
      [
        'invalid UTF-8 in a text part',
        Buffer.concat([
          Buffer.from('{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"a'),
          Buffer.from([0xed, 0xa0, 0x80, 0xff]),
          Buffer.from('"}]},"configuration":{"returnImmediately":true}}}'),
        ]),
      ],
      ['a lone surrogate escape', Buffer.from('{"jsonrpc":"2.0","id":"\\ud800","method":"GetTask","params":{"id":"\\udfff"}}')],
      ['a raw NUL inside a string', Buffer.from('{"jsonrpc":"2.0","id":1,"method":"Get\u0000Task"}')],
      ['a raw NUL between tokens', Buffer.from('{"jsonrpc":"2.0",\u0000"id":1,"method":"GetTask"}')],
      ['an escaped NUL in the method', Buffer.from('{"jsonrpc":"2.0","id":1,"method":"GetTask\\u0000"}')],
      ['an escaped NUL in an id', Buffer.from('{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"tsk_\\u0000"}}')],
      ['only NULs', Buffer.alloc(64)],
      ['a UTF-8 BOM', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(envelope('ListTasks', {}, 1)))])],
      ['UTF-16', Buffer.from(JSON.stringify(envelope('ListTasks', {}, 1)), 'utf16le')],
    ];
    for (const [name, body] of bodies) assertEnvelope(await postRaw(door.url, body), name);
    assertRpcError(await postRaw(door.url, bodies[1][1]), { ...STANDARD.methodNotFound, id: 1 });
    assertRpcError(await postRaw(door.url, bodies[4][1]), { ...STANDARD.parse, id: null });
    await assertStillServes();
  });

  test('numbers out of range: 1e309, -1e309, huge integers, -0', async () => {
    const cases: Array<[string, string]> = [
      ['id 1e309', '{"jsonrpc":"2.0","id":1e309,"method":"GetTask","params":{"id":"x"}}'],
      ['id 2^64', '{"jsonrpc":"2.0","id":18446744073709551616,"method":"GetTask","params":{"id":"x"}}'],
      ['id -0', '{"jsonrpc":"2.0","id":-0,"method":"GetTask","params":{"id":"x"}}'],
      ['pageSize 1e309', '{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{"pageSize":1e309}}'],
      ['pageSize -1e309', '{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{"pageSize":-1e309}}'],
      ['pageSize 1e20', '{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{"pageSize":1e20}}'],
      ['pageSize 1.0', '{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{"pageSize":1.0}}'],
      ['GetTask id 1e309', '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":1e309}}'],
      [
        'returnImmediately 1e309',
        '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"}]},"configuration":{"returnImmediately":1e309}}}',
      ],
      ['historyLength 1e309', '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x","historyLength":1e309}}'],
      ['tenant 1e309', '{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{"tenant":1e309}}'],
    ];
    for (const [name, body] of cases) assertEnvelope(await postRaw(door.url, body), name);
    assertRpcError(await postRaw(door.url, cases[0][1]), { ...STANDARD.invalidRequest, id: null });
    assertRpcError(await postRaw(door.url, cases[3][1]), { code: -32602, id: 1 });
    await assertStillServes();
  });

  test('prototype keys are plain members', async () => {
    const bodies = [
      '{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{"__proto__":{"pageSize":0}}}',
      '{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{"constructor":{"prototype":{"pageSize":0}}}}',
      '{"__proto__":{"jsonrpc":"2.0","id":1,"method":"ListTasks"}}',
      '{"jsonrpc":"2.0","id":1,"method":"__proto__"}',
      '{"jsonrpc":"2.0","id":1,"method":"toString"}',
      '{"jsonrpc":"2.0","id":1,"method":"constructor"}',
      '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"__proto__":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"}]}}}}',
      '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"__proto__":{"text":"x"}}]}}}',
    ];
    for (const body of bodies) assertEnvelope(await postRaw(door.url, body), body);
    assert.equal((await postRaw(door.url, bodies[0])).json.result.pageSize, 50);
    for (const i of [3, 4, 5]) assertRpcError(await postRaw(door.url, bodies[i]), { ...STANDARD.methodNotFound, id: 1 });
    await assertStillServes();
  });

  test('a body over the limit (9 MB) answers -32600 without crashing', async () => {
    const big = JSON.stringify(envelope('SendMessage', { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'y'.repeat(9 * 1000 * 1000) }] } }, 1));
    const answer = await postRaw(door.url, big);
    assertRpcError(answer, { ...STANDARD.invalidRequest, id: null });
    const garbage = await postRaw(door.url, Buffer.alloc(9 * 1024 * 1024, 0x7b));
    assertRpcError(garbage, { ...STANDARD.invalidRequest, id: null });
    await assertStillServes();
  });

  test('concurrent garbage does not disturb a served request', async () => {
    const junk = Array.from({ length: 40 }, (_, i) => postRaw(door.url, i % 2 ? '{"jsonrpc":' : '[]'));
    const good = rpc(door.url, 'GetTask', { id: knownTaskId });
    const answers = await Promise.all(junk);
    for (const a of answers) assertEnvelope(a, 'concurrent junk');
    assert.equal((await good).json.result.id, knownTaskId);
  });
});

describe('seeded random mutations of valid requests', () => {
  const SEED = 0x5eed_d00d;
  const COUNT = 300;

  const randomValue = (rand: () => number): unknown => {
    const pick = Math.floor(rand() * 16);
    switch (pick) {
      case 0:
        return null;
      case 1:
        return rand() < 0.5;
      case 2:
        return Math.floor(rand() * 2 ** 31) * (rand() < 0.5 ? -1 : 1);
      case 3:
        return rand() * 1e6;
      case 4:
        return '';
      case 5:
        return String.fromCharCode(...Array.from({ length: 1 + Math.floor(rand() * 12) }, () => Math.floor(rand() * 0x2ff)));
      case 6:
        return [];
      case 7:
        return {};
      case 8:
        return [randomValue(rand)];
      case 9:
        return { [`k${Math.floor(rand() * 10)}`]: randomValue(rand) };
      case 10:
        return 'TASK_STATE_WORKING';
      case 11:
        return 'ROLE_USER';
      case 12:
        return 'tsk_' + '0'.repeat(32);
      case 13:
        return '\u0000\ud800';
      case 14:
        return 'x'.repeat(Math.floor(rand() * 5000));
      default:
        return Number.MAX_SAFE_INTEGER + 2;
    }
  };

  /** One mutation of a parsed request: replace, delete, insert, wrap, or edit a string or number in place. */
  function mutateTree(request: Record<string, unknown>, rand: () => number): string {
    const paths = memberPaths(request);
    const at = paths[Math.floor(rand() * paths.length)];
    let parent = request as Record<string | number, unknown>;
    for (const key of at.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
    const key = at.at(-1)!;
    const op = Math.floor(rand() * 6);
    if (op === 0) parent[key] = randomValue(rand);
    else if (op === 1) {
      if (Array.isArray(parent)) parent.splice(Number(key), 1);
      else delete parent[key];
    } else if (op === 2) {
      if (Array.isArray(parent)) parent.push(structuredClone(parent[key]));
      else parent[`extra${Math.floor(rand() * 100)}`] = randomValue(rand);
    } else if (op === 3) parent[key] = [parent[key]];
    else if (op === 4) {
      const v = parent[key];
      if (typeof v === 'string' && v.length > 0) {
        const i = Math.floor(rand() * v.length);
        parent[key] = v.slice(0, i) + String.fromCharCode(Math.floor(rand() * 0x10000)) + v.slice(i + 1);
      } else if (typeof v === 'number') parent[key] = -v * 1e3 + 0.5;
      else parent[key] = randomValue(rand);
    } else parent[key] = { value: parent[key] };
    return JSON.stringify(request);
  }

  /** One mutation of the serialized text: delete, insert, duplicate or swap a few characters, or cut it. */
  function mutateText(text: string, rand: () => number): string {
    const i = Math.floor(rand() * text.length);
    const op = Math.floor(rand() * 5);
    const chars = '{}[]":,\\0123456789eE+-. tfnul\u0000\u00ff\ud83d';
    if (op === 0) return text.slice(0, i) + text.slice(i + 1 + Math.floor(rand() * 3));
    if (op === 1) return text.slice(0, i) + chars[Math.floor(rand() * chars.length)] + text.slice(i);
    if (op === 2) return text.slice(0, i) + text.slice(i, i + 8) + text.slice(i);
    if (op === 3) {
      const j = Math.floor(rand() * text.length);
      const a = [...text];
      [a[i], a[j]] = [a[j], a[i]];
      return a.join('');
    }
    return text.slice(0, i);
  }

  test(`${COUNT} mutations (seed ${SEED.toString(16)}) each answer a JSON-RPC envelope, and the door serves afterwards`, async () => {
    const rand = prng(SEED);
    const methods = ['SendMessage', 'GetTask', 'ListTasks', 'CancelTask'];
    const codes = new Map<string, number>();
    for (let n = 0; n < COUNT; n++) {
      const method = methods[n % methods.length];
      const request = envelope(method, structuredClone(baseParams()[method]), n);
      const rounds = 1 + Math.floor(rand() * 3);
      let body = JSON.stringify(request);
      if (rand() < 0.65) for (let r = 0; r < rounds; r++) body = mutateTree(JSON.parse(body), rand);
      else for (let r = 0; r < rounds; r++) body = mutateText(body, rand);
      const answer = await httpRequest(door.url, { method: 'POST', path: '/', headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' }, body });
      assertEnvelope(answer, `mutation ${n} of ${method}: ${body.slice(0, 300)}`);
      const key = answer.json.error ? String(answer.json.error.code) : answer.status === 404 ? '404' : 'result';
      codes.set(key, (codes.get(key) ?? 0) + 1);
    }
    // The mutations reach several steps of the pipeline, not one refusal over and over.
    assert.ok(codes.size >= 4, `answers seen: ${JSON.stringify([...codes])}`);
    await assertStillServes();
  });
});
