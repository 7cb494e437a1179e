/**
 * Generated hostile requests for the fuzz and soak suites (issue 16), built with fast-check so a run is replayable from
 * its seed. Each request says whether it carries a valid door token, so the suite can judge the answer.
 */
import fc from 'fast-check';

export interface HostileRequest {
  method: string;
  target: string;
  /** One header line per element of an array value. */
  headers: Record<string, string | string[]>;
  body: string;
  /** Exactly one Authorization line, Bearer (any case), one space, then a token the door minted. */
  authenticated: boolean;
  /** Whether the door owes a JSON-RPC answer (past the gate, a POST / with a JSON content type and a body). */
  rpcDue: boolean;
  /** A request whose x-murmur-task-origin names peer: refused 403 on a door not accepting peers. */
  peer: boolean;
}

const METHODS = [
  'SendMessage',
  'SendStreamingMessage',
  'GetTask',
  'ListTasks',
  'CancelTask',
  'SubscribeToTask',
  'murmur.WatchSession',
  'murmur.StopSession',
  'GetExtendedAgentCard',
  'CreateTaskPushNotificationConfig',
  'message/send',
  'tasks/get',
  '',
  'getTask',
  'SendMessage\u0000',
];

const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom('\u0000', '\ud800', 'tsk_00000000000000000000000000000000', 'ctx_x', '$(touch pwned)', 'x'.repeat(70_000)),
);

const deep = fc.integer({ min: 1, max: 3_000 }).map((n) => JSON.parse('['.repeat(n) + ']'.repeat(n)) as unknown);

const value: fc.Arbitrary<unknown> = fc.oneof(
  { depthSize: 'small' },
  fc.jsonValue({ maxDepth: 3 }),
  text,
  deep,
  fc.constantFrom(null, true, 0, -1, 1.5, 1e308, [], {}),
);

const forgedPageToken = fc.oneof(
  fc.tuple(fc.integer({ min: -5, max: 2 ** 53 }), fc.string({ maxLength: 40 })).map(([n, id]) => Buffer.from(`${n}:${id}`).toString('base64')),
  fc.tuple(fc.nat(), fc.string({ maxLength: 30 })).map(([n, seal]) => Buffer.from(`${n}:tsk_${'0'.repeat(32)}:${seal}`).toString('base64url')),
  fc.string({ maxLength: 60 }),
);

const message = fc.record(
  {
    messageId: fc.oneof(fc.uuid(), text),
    role: fc.constantFrom('ROLE_USER', 'ROLE_AGENT', 'user', ''),
    parts: fc.oneof(
      fc.array(fc.oneof(fc.record({ text }), fc.record({ data: value }), fc.record({ raw: text, mediaType: text }), value), { maxLength: 3 }),
      value,
    ),
    taskId: text,
    contextId: text,
    referenceTaskIds: fc.oneof(fc.array(text, { maxLength: 3 }), value),
    metadata: value,
  },
  { requiredKeys: ['messageId', 'role', 'parts'] },
);

function paramsFor(method: string): fc.Arbitrary<unknown> {
  const params: Record<string, fc.Arbitrary<unknown>> = {
    SendMessage: fc.oneof(
      {
        weight: 3,
        arbitrary: fc.record({
          message: fc.record({ messageId: fc.uuid(), role: fc.constant('ROLE_USER'), parts: fc.array(fc.record({ text }), { minLength: 1, maxLength: 2 }) }),
          configuration: fc.record({ returnImmediately: fc.boolean() }),
        }),
      },
      fc.record(
        { message: fc.oneof(message, value), configuration: fc.oneof(fc.record({ returnImmediately: fc.oneof(fc.constant(true), value) }), value) },
        { requiredKeys: ['message'] },
      ),
    ),
    ListTasks: fc.record({
      pageSize: fc.oneof(fc.integer({ min: -2, max: 200 }), value),
      pageToken: fc.oneof(forgedPageToken, value),
      status: fc.oneof(text, value),
      contextId: text,
      includeArtifacts: value,
      statusTimestampAfter: fc.oneof(text, value),
      tenant: text,
    }),
    GetTask: fc.record({ id: fc.oneof(text, value), historyLength: value }),
    CancelTask: fc.record({ id: fc.oneof(text, value) }),
    SubscribeToTask: fc.record({ id: fc.oneof(text, value) }),
  };
  params.SendStreamingMessage = params.SendMessage;
  return fc.oneof(params[method] ?? fc.dictionary(fc.string({ maxLength: 8 }), value, { maxKeys: 3 }), value);
}

/** The body: a JSON-RPC envelope in many shapes, duplicate keys, or bytes that are not one. */
const body = fc.constantFrom(...METHODS).chain((method) =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .record({
          jsonrpc: fc.constant('2.0'),
          id: fc.oneof(fc.integer(), fc.string({ maxLength: 10 })),
          method: fc.constant(method),
          params: paramsFor(method),
        })
        .map((e) => JSON.stringify(e)),
    },
    {
      weight: 3,
      arbitrary: fc
        .record(
          {
            jsonrpc: fc.oneof(fc.constant('2.0'), value),
            id: fc.oneof(fc.integer(), fc.string({ maxLength: 10 }), value),
            method: fc.oneof(fc.constant(method), value),
            params: paramsFor(method),
          },
          { requiredKeys: [] },
        )
        .map((e) => JSON.stringify(e)),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...METHODS), fc.constantFrom(...METHODS))
        .map(([a, b]) => `{"jsonrpc":"2.0","id":1,"method":"${a}","params":{"id":"x","id":"y"},"method":"${b}"}`),
    },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '',
        '[]',
        '[{"jsonrpc":"2.0","id":1,"method":"ListTasks"}]',
        '\ufeff{"jsonrpc":"2.0","id":1,"method":"ListTasks"}',
        'null',
        '{"jsonrpc":"2.0","id":1,"method":"ListTasks"',
      ),
    },
  ),
);

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  '',
  ';;',
  'text/plain',
  'application/json, text/plain',
  'a/b/c',
  'application/jsonx',
  'multipart/form-data; boundary=x',
];
const isJson = (type: string | undefined) => type !== undefined && type.split(';')[0].trim().toLowerCase() === 'application/json';

/** Targets node:http can send; the asterisk form and others that need a raw socket are in the fuzz suite's own list. */
const TARGETS = ['/', '/', '/', '/?x=1', '//', '/x', '/%zz', '/.well-known/agent-card.json', '/resources/files/a', '/resources/peer/h', '/?access_token='];

/** The Authorization lines for one request, and whether they carry a valid token. */
function authorization(tokens: readonly string[]): fc.Arbitrary<{ lines: string[]; valid: boolean; queryToken: boolean }> {
  return fc.tuple(fc.constantFrom(...tokens), fc.nat(13), fc.string({ maxLength: 6 })).map(([token, kind, junk]) => {
    const variants: Array<[string[], boolean]> = [
      [[`Bearer ${token}`], true],
      [[`bearer ${token}`], true],
      [[`BeArEr ${token}`], true],
      [[`Bearer  ${token}`], false],
      // HTTP strips whitespace around a header value (RFC 9110 §5.5): this one arrives as the valid form.
      [[`Bearer ${token} `], true],
      [[`Bearer ${token.slice(0, -1)}`], false],
      [[`Bearer ${token}${junk.trimEnd() || 'x'}`], false],
      [[`Bearer ${token.toUpperCase()}`], false],
      [[token], false],
      [[`Basic ${Buffer.from(`op:${token}`).toString('base64')}`], false],
      [[`Bearer ${token}`, `Bearer ${token}`], false],
      [[`Bearer ${junk}`], false],
      [[], false],
      [[`Bearer ${token}`, ''], false],
    ];
    const [lines, valid] = variants[kind];
    return { lines, valid, queryToken: kind === 12 };
  });
}

export function hostileRequest(tokens: readonly string[], sessionId: string): fc.Arbitrary<HostileRequest> {
  return fc
    .record({
      method: fc.oneof({ weight: 12, arbitrary: fc.constant('POST') }, fc.constantFrom('GET', 'PUT', 'OPTIONS', 'DELETE')),
      target: fc.oneof({ weight: 10, arbitrary: fc.constant('/') }, fc.constantFrom(...TARGETS)),
      contentType: fc.oneof({ weight: 10, arbitrary: fc.constant('application/json') }, fc.option(fc.constantFrom(...CONTENT_TYPES), { nil: undefined })),
      version: fc.oneof(
        { weight: 10, arbitrary: fc.constant('1.0') },
        fc.option(fc.oneof(fc.constantFrom('1.0.1', '', '0.3', '2.0', '1.0x'), fc.constant<string[]>(['1.0', '1.0'])), { nil: undefined }),
      ),
      auth: fc.oneof({ weight: 3, arbitrary: authorization(tokens).filter((a) => a.valid) }, authorization(tokens)),
      origin: fc.option(fc.constantFrom('peer', 'completion', 'a2a', 'PEER', 'completion, peer', 'junk'), { nil: undefined, freq: 8 }),
      completionSession: fc.option(
        fc.oneof(
          fc.constant(sessionId),
          text.filter((s) => /^[\x20-\x7e]*$/.test(s) && s.length < 200),
        ),
        { nil: undefined },
      ),
      trust: fc.option(fc.constantFrom('trusted', 'untrusted', 'TRUSTED', ''), { nil: undefined }),
      lastEventId: fc.option(
        fc.oneof(
          fc.constantFrom('0', '-1', '18446744073709551616', '1e3', ' 5', ''),
          fc.string({ maxLength: 20 }).filter((s) => /^[\x20-\x7e]*$/.test(s)),
        ),
        { nil: undefined },
      ),
      body,
    })
    .map((r) => {
      const headers: Record<string, string | string[]> = {};
      if (r.contentType !== undefined) headers['content-type'] = r.contentType;
      if (r.version !== undefined) headers['a2a-version'] = r.version;
      if (r.auth.lines.length > 0) headers.authorization = r.auth.lines;
      if (r.origin !== undefined) headers['x-murmur-task-origin'] = r.origin;
      if (r.completionSession !== undefined) headers['x-murmur-completion-session'] = r.completionSession;
      if (r.trust !== undefined) headers['x-murmur-task-trust'] = r.trust;
      if (r.lastEventId !== undefined) headers['last-event-id'] = r.lastEventId;
      const target = r.target === '/?access_token=' ? `/?access_token=${tokens[0]}` : r.target;
      const peer =
        r.origin
          ?.toLowerCase()
          .split(',')
          .some((o) => o.trim() === 'peer') ?? false;
      const pathname = target.split('?')[0];
      const rpcDue = r.auth.valid && !peer && r.method === 'POST' && pathname === '/' && isJson(r.contentType) && r.body !== '';
      return { method: r.method, target, headers, body: r.body, authenticated: r.auth.valid, rpcDue, peer };
    });
}
