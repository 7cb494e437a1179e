/**
 * The control surface on a real door (docs/control.md): its own token, minted at launch and printed by mur token;
 * a driver switch made from outside mid-task, applied at the next inference call with control_change and
 * control_applied naming the operator and the token's id; every refusal, byte for byte, switch-driver's messages
 * among them; door tokens refused by it and its token refused by the door; and mur control's output and exits.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { authBlock, bearer, tokensOf } from './support/auth.js';
import { type DoorProcess, makeCapsule, manifestYaml, runDoor } from './support/door-process.js';
import { rpc, userMessage, waitFor } from './support/rpc.js';
import { readTrace, runMur } from './support/tasks.js';
import { httpRequest, type RawAnswer } from './support/wire.js';

const MANIFEST = `name: steered
version: 0.1.0
lifecycle:
  task_acceptance: queue
inference:
  driver: first
  max_turns: 8
  choices:
    first:
      driver: script
      script: first.yaml
    second:
      driver: script
      script: second.yaml
    nokey:
      driver: openai-compatible
      base_url: http://127.0.0.1:9/v1
      model: never-called
      api_key_env: MURMUR_TEST_UNSET_KEY
capabilities:
  shell:
    allow: [bash]
${authBlock({ watcher: ['GetTask'] })}
`;

// The first choice waits in a tool call until the test has switched, so the switch lands between two calls.
const FIRST = `default:
  turns:
    - tools:
        - tool: bash
          input: { args: ["-c", "while [ ! -e go ]; do sleep 0.02; done; echo waited"] }
    - answer: "first answers: {{tool.stdout}}"
`;
const SECOND = `default:
  turns:
    - answer: "second answers: {{tool.stdout}}"
`;

const REALM = 'Bearer realm="steered control"';
const INVALID = `${REALM}, error="invalid_token"`;

let door: DoorProcess;
let control: { tokenId: string; token: string };
let doorTokens: Record<string, string>;

before(async () => {
  delete process.env.MURMUR_TEST_UNSET_KEY;
  door = await runDoor(makeCapsule(MANIFEST, undefined, { 'first.yaml': FIRST, 'second.yaml': SECOND }));
  control = JSON.parse(readFileSync(path.join(door.recordsDir, 'control-token.json'), 'utf8'));
  doorTokens = tokensOf(door);
});

after(async () => {
  await door?.stop();
});

const atControl = (request: { method?: string; path?: string; headers?: Record<string, string | string[]>; body?: string } = {}): Promise<RawAnswer> =>
  httpRequest(door.url, { method: 'GET', path: '/control', ...request });

const change = (value: unknown, token = control.token, setting: unknown = 'inference.driver') =>
  atControl({ method: 'POST', headers: { ...bearer(token), 'content-type': 'application/json' }, body: JSON.stringify({ setting, value }) });

const controlRecords = () =>
  readTrace(door.recordsDir)
    .filter((r) => r.type.startsWith('control_'))
    .map(({ ts: _ts, ...rest }) => rest);

function assertRefusal(answer: RawAnswer, status: number, error: string, message: string, challenge?: string): void {
  assert.equal(answer.status, status, answer.text);
  assert.equal(answer.headers['content-type'], 'application/json');
  assert.equal(answer.text, JSON.stringify({ error, message }));
  assert.equal(answer.headers['www-authenticate'], challenge);
}

test('the control token: minted at launch with its id, mode 0600, apart from the door tokens, printed by mur token', async () => {
  const file = path.join(door.recordsDir, 'control-token.json');
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.match(control.tokenId, /^ctk_[0-9a-f]{32}$/);
  assert.match(control.token, /^mur_ctl_[A-Za-z0-9_-]{43}$/);
  assert.ok(!Object.values(doorTokens).includes(control.token));

  const json = await runMur(['token', '--json'], door.home);
  assert.equal(json.code, 0, json.stderr);
  const printed = JSON.parse(json.stdout);
  assert.deepEqual(printed.control, control);
  assert.deepEqual(
    printed.tokens.map((t: { credential: string }) => t.credential),
    ['operator', 'watcher'],
  );
  const text = await runMur(['token'], door.home);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, new RegExp(`^control {6}${control.token} {2}the control surface \\(/control\\), not the door$`, 'm'));
});

test('GET /control: the settings it changes, the value now and each choice, usable or not', async () => {
  const answer = await atControl({ headers: bearer(control.token) });
  assert.equal(answer.status, 200, answer.text);
  assert.equal(answer.headers['content-type'], 'application/json');
  assert.deepEqual(answer.json, {
    sessionId: door.sessionId,
    settings: [
      {
        setting: 'inference.driver',
        value: 'first',
        choices: [
          { name: 'first', driver: 'script', usable: true },
          { name: 'second', driver: 'script', usable: true },
          {
            name: 'nokey',
            driver: 'openai-compatible',
            model: 'never-called',
            usable: false,
            problem: 'its key variable MURMUR_TEST_UNSET_KEY (api_key_env) is not set',
          },
        ],
      },
    ],
  });
});

test('a switch from outside mid-task: applied at the next inference call, with control_change then control_applied', async () => {
  const before = controlRecords().length;
  const sent = await rpc(
    door.url,
    'SendMessage',
    { message: userMessage('steer me'), configuration: { returnImmediately: true } },
    bearer(doorTokens.operator),
  );
  const taskId = sent.json.result.task.id as string;
  // The first call has been made and its tool is waiting: switch now, then let the tool finish.
  await waitFor(
    async () => (readTrace(door.recordsDir).some((r) => r.type === 'inference' && r.task_id === taskId) ? true : undefined),
    'the first inference record',
  );
  const switched = await change('second');
  assert.equal(switched.status, 200, switched.text);
  assert.deepEqual(switched.json, {
    setting: 'inference.driver',
    from: 'first',
    to: 'second',
    message: 'inference.driver: first → second (script); the next inference call is served by second',
  });
  writeFileSync(path.join(door.recordsDir, 'work', 'go'), '');
  const done = await waitFor(async () => {
    const task = (await rpc(door.url, 'GetTask', { id: taskId }, bearer(doorTokens.operator))).json.result;
    return task.status.state === 'TASK_STATE_COMPLETED' ? task : undefined;
  }, 'the task to complete');
  assert.equal(done.artifacts[0].parts[0].text, 'second answers: waited');

  const trace = readTrace(door.recordsDir);
  assert.deepEqual(
    trace.filter((r) => r.type === 'inference' && r.task_id === taskId).map((r) => [r.turn, r.driver]),
    [
      [1, 'first'],
      [2, 'second'],
    ],
  );
  assert.deepEqual(controlRecords().slice(before), [
    { type: 'control_change', principal: 'operator', token_id: control.tokenId, setting: 'inference.driver', from: 'first', to: 'second' },
    { type: 'control_applied', principal: 'operator', token_id: control.tokenId, setting: 'inference.driver', value: 'second', task_id: taskId, turn: 2 },
  ]);
  const applied = trace.findIndex((r) => r.type === 'control_applied');
  const secondCall = trace.findIndex((r) => r.type === 'inference' && r.driver === 'second');
  assert.ok(applied < secondCall, 'control_applied is written before the call it names');

  // The choice already serving: nothing changes, still one control_change; no control_applied follows.
  const again = await change('second');
  assert.equal(again.status, 200);
  assert.equal(again.json.message, 'inference.driver is already second; nothing changes');
  assert.deepEqual(controlRecords().at(-1), {
    type: 'control_change',
    principal: 'operator',
    token_id: control.tokenId,
    setting: 'inference.driver',
    from: 'second',
    to: 'second',
  });
});

test("an undeclared choice and a choice whose key is unset: 422 with switch-driver's messages, control_refused, nothing switches", async () => {
  const before = controlRecords().length;
  const undeclared = await change('bogus');
  assertRefusal(undeclared, 422, 'control_refused', 'driver "bogus" is not one of first, second, nokey');
  const nokey = await change('nokey');
  assertRefusal(nokey, 422, 'control_refused', "choice 'nokey' cannot be used: its key variable MURMUR_TEST_UNSET_KEY (api_key_env) is not set");
  const setting = await change('x', control.token, 'inference.model');
  assertRefusal(setting, 422, 'setting_not_controllable', 'the control surface changes inference.driver, not "inference.model"');
  const by = { principal: 'operator', token_id: control.tokenId };
  assert.deepEqual(controlRecords().slice(before), [
    { type: 'control_refused', ...by, setting: 'inference.driver', value: 'bogus', reason: 'driver "bogus" is not one of first, second, nokey' },
    {
      type: 'control_refused',
      ...by,
      setting: 'inference.driver',
      value: 'nokey',
      reason: "choice 'nokey' cannot be used: its key variable MURMUR_TEST_UNSET_KEY (api_key_env) is not set",
    },
    { type: 'control_refused', ...by, setting: 'inference.model', value: 'x', reason: 'the control surface changes inference.driver, not "inference.model"' },
  ]);
  const now = await atControl({ headers: bearer(control.token) });
  assert.equal(now.json.settings[0].value, 'second');
});

test('a wrong token, a door token and a malformed Authorization: 401 from the control surface, with no record', async () => {
  const before = controlRecords().length;
  const post = (headers: Record<string, string | string[]>) =>
    atControl({
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ setting: 'inference.driver', value: 'first' }),
    });
  assertRefusal(
    await post({}),
    401,
    'unauthenticated',
    "the control surface needs the session's control token: send Authorization: Bearer <token> (mur token prints it)",
    REALM,
  );
  const wrong = "this is not this session's control token, or the session has been restarted since";
  assertRefusal(await post(bearer(`${control.token}x`)), 401, 'invalid_token', wrong, INVALID);
  assertRefusal(await post(bearer('mur_ctl_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')), 401, 'invalid_token', wrong, INVALID);
  const doorToken = "this is a door token: the control surface takes the session's control token, which no door accepts (mur token prints it)";
  assertRefusal(await post(bearer(doorTokens.operator)), 401, 'invalid_token', doorToken, INVALID);
  assertRefusal(await post(bearer(doorTokens.watcher)), 401, 'invalid_token', doorToken, INVALID);
  assertRefusal(await atControl({ headers: bearer(doorTokens.operator) }), 401, 'invalid_token', doorToken, INVALID);
  assertRefusal(
    await post({ authorization: [`Bearer ${control.token}`, `Bearer ${control.token}`] }),
    401,
    'invalid_token',
    'send one Authorization header, not several',
    INVALID,
  );
  assertRefusal(await post({ authorization: `Basic ${control.token}` }), 401, 'invalid_token', 'the Authorization header must be Bearer <token>', INVALID);
  // The token comes before the path: a path under /control/ says nothing without it.
  assertRefusal(
    await atControl({ path: '/control/settings' }),
    401,
    'unauthenticated',
    "the control surface needs the session's control token: send Authorization: Bearer <token> (mur token prints it)",
    REALM,
  );
  assert.equal(controlRecords().length, before);
  const now = await atControl({ headers: bearer(control.token) });
  assert.equal(now.json.settings[0].value, 'second', 'nothing switched');
});

test('the door refuses the control token: 401 invalid_token, as any token it did not mint', async () => {
  const answer = await rpc(door.url, 'GetTask', { id: 'tsk_00000000000000000000000000000000' }, bearer(control.token));
  assert.equal(answer.status, 401);
  assert.equal(
    answer.text,
    JSON.stringify({ error: 'invalid_token', message: 'this token was not minted by this session, or the session has been restarted since' }),
  );
});

test('the path, the method and the body: 404, 405 with Allow, 400 — none recorded', async () => {
  const before = controlRecords().length;
  const headers = bearer(control.token);
  assertRefusal(await atControl({ path: '/control/settings', headers }), 404, 'not_found', 'the control surface answers GET and POST at /control');
  const put = await atControl({ method: 'PUT', headers });
  assertRefusal(put, 405, 'method_not_allowed', 'the control surface answers GET and POST, not PUT');
  assert.equal(put.headers.allow, 'GET, HEAD, POST');
  const body = JSON.stringify({ setting: 'inference.driver', value: 'first' });
  assertRefusal(
    await atControl({ method: 'POST', headers: { ...headers, 'content-type': 'text/plain' }, body }),
    400,
    'invalid_request',
    'send the change with content-type: application/json',
  );
  const json = { ...headers, 'content-type': 'application/json' };
  assertRefusal(await atControl({ method: 'POST', headers: json, body: '{"setting":' }), 400, 'invalid_request', 'the body is not JSON');
  const shape = 'the body must be {"setting": "<setting>", "value": "<value>"}, both strings';
  assertRefusal(await atControl({ method: 'POST', headers: json, body: '["inference.driver","first"]' }), 400, 'invalid_request', shape);
  assertRefusal(await atControl({ method: 'POST', headers: json, body: '{"setting":"inference.driver","value":1}' }), 400, 'invalid_request', shape);
  assertRefusal(await atControl({ method: 'POST', headers: json, body: '' }), 400, 'invalid_request', 'the body is not JSON');
  assert.equal(controlRecords().length, before);
  // A query string does not change the path, and no A2A-Version is read.
  const queried = await atControl({ path: '/control?x=1', headers });
  assert.equal(queried.status, 200);
});

test('mur control: prints the settings, switches with the control token from the records, and says each failure', async () => {
  const shown = await runMur(['control'], door.home);
  assert.equal(shown.code, 0, shown.stderr);
  assert.equal(
    shown.stdout,
    [
      'inference.driver: second',
      '    first   script',
      '  * second  script',
      '    nokey   openai-compatible, never-called — cannot be used: its key variable MURMUR_TEST_UNSET_KEY (api_key_env) is not set',
      '',
    ].join('\n'),
  );
  const switched = await runMur(['control', door.sessionId, 'driver', 'first'], door.home);
  assert.deepEqual(switched, { code: 0, stdout: 'inference.driver: second → first (script); the next inference call is served by first\n', stderr: '' });
  const json = await runMur(['control', 'driver', 'first', '--json'], door.home);
  assert.equal(json.code, 0, json.stderr);
  assert.deepEqual(JSON.parse(json.stdout), {
    setting: 'inference.driver',
    from: 'first',
    to: 'first',
    message: 'inference.driver is already first; nothing changes',
  });

  const undeclared = await runMur(['control', door.sessionId, 'driver', 'bogus'], door.home);
  assert.deepEqual(undeclared, {
    code: 1,
    stdout: '',
    stderr: `mur: the control surface of session ${door.sessionId} refused (422 control_refused): driver "bogus" is not one of first, second, nokey\n`,
  });
  const doorToken = await runMur(['control', 'driver', 'second', '--token', doorTokens.operator], door.home);
  assert.deepEqual(doorToken, {
    code: 1,
    stdout: '',
    stderr: `mur: the control surface of session ${door.sessionId} refused (401 invalid_token): this is a door token: the control surface takes the session's control token, which no door accepts (mur token prints it)\n`,
  });
  const noValue = await runMur(['control', 'driver'], door.home);
  assert.equal(noValue.code, 2);
  assert.match(noValue.stderr, /^mur: mur control driver takes a choice name, such as mur control driver fast\nusage: mur control /);
  const otherSetting = await runMur(['control', door.sessionId, 'model', 'x'], door.home);
  assert.equal(otherSetting.code, 2);
  assert.match(otherSetting.stderr, /^mur: mur control changes driver \(inference\.driver\), not "model"\n/);
  const noSession = await runMur(['control', 'ses_nosuch', 'driver', 'first'], door.home);
  assert.deepEqual(noSession, { code: 2, stdout: '', stderr: 'mur: no running session is ses_nosuch\n' });
  const now = await atControl({ headers: bearer(control.token) });
  assert.equal(now.json.settings[0].value, 'first', 'only the accepted switch changed anything');
});

test('the token is in no record, log or registry entry, and its file goes when the session ends', async () => {
  const trace = readFileSync(path.join(door.recordsDir, 'trace.jsonl'), 'utf8');
  assert.ok(!trace.includes(control.token));
  assert.ok(trace.includes(control.tokenId));
  assert.ok(!door.stderr().includes(control.token));
  const log = path.join(door.recordsDir, 'logs', 'door.log');
  if (existsSync(log)) assert.ok(!readFileSync(log, 'utf8').includes(control.token));
  await door.stop();
  assert.equal(existsSync(path.join(door.recordsDir, 'control-token.json')), false);
});

test('a public door mints a control token too: the control surface still asks for it, and mur token prints only it', async () => {
  const open = await runDoor(makeCapsule(manifestYaml({ name: 'open' }), 'default:\n  turns:\n    - answer: hi\n'));
  try {
    const minted = JSON.parse(readFileSync(path.join(open.recordsDir, 'control-token.json'), 'utf8')) as { tokenId: string; token: string };
    const bare = await httpRequest(open.url, { method: 'GET', path: '/control' });
    assertRefusal(
      bare,
      401,
      'unauthenticated',
      "the control surface needs the session's control token: send Authorization: Bearer <token> (mur token prints it)",
      'Bearer realm="open control"',
    );
    const read = await httpRequest(open.url, { method: 'GET', path: '/control', headers: bearer(minted.token) });
    assert.equal(read.status, 200);
    assert.deepEqual(read.json.settings[0].choices, [{ name: 'script', driver: 'script', usable: true }]);
    const printed = await runMur(['token', open.sessionId], open.home);
    assert.deepEqual(printed, { code: 0, stdout: `control      ${minted.token}  the control surface (/control), not the door\n`, stderr: '' });
    const json = await runMur(['token', open.sessionId, '--json'], open.home);
    assert.deepEqual(JSON.parse(json.stdout), { sessionId: open.sessionId, url: open.url, tokens: [], control: minted });
  } finally {
    await open.stop();
  }
});
