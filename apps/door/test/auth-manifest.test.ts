/**
 * network.authentication.credentials in murmur.yaml (seed 000, "Migrating from A2A 0.3" and "Tokens"): a scope is a
 * door method's v1.0 name or resources/files; an A2A 0.3 name, an old murmur name or any other string is refused,
 * and so is a declared credential named operator. `mur run` exits 2 naming the key path and the rule, and starts
 * nothing.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { authBlock, mur } from './support/auth.js';
import { makeCapsule, manifestYaml, runDoor, tempDir } from './support/door-process.js';

const SCRIPT = 'default:\n  turns:\n    - answer: ok\n';

/** Runs `mur run` on a capsule with the given credentials; it must exit 2 before announcing. */
async function refused(credentials: Record<string, readonly string[]>): Promise<string> {
  const home = tempDir('home');
  const dir = makeCapsule(manifestYaml({ name: 'refused', extra: authBlock(credentials) }), SCRIPT);
  const result = await mur(['run', dir, '--json'], home);
  assert.equal(result.code, 2, `exit code; stderr: ${result.stderr}`);
  assert.equal(result.stdout, '', 'nothing announced');
  assert.match(result.stderr, /^mur: /);
  assert.ok(result.stderr.includes(path.join(dir, 'murmur.yaml')), `names the file: ${result.stderr}`);
  const sessions = path.join(home, 'sessions');
  assert.ok(!existsSync(sessions) || readdirSync(sessions).length === 0, 'no session registered');
  return result.stderr;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

const RETIRED: Array<[string, string]> = [
  ['message/send', 'SendMessage'],
  ['message/stream', 'SendStreamingMessage'],
  ['tasks/get', 'GetTask'],
  ['tasks/cancel', 'CancelTask'],
  ['stream/watch', 'murmur.WatchSession'],
  ['session/stop', 'murmur.StopSession'],
];
const UNKNOWN = ['Foo', 'sendmessage', 'SendMessage ', 'GetExtendedAgentCard', 'CreateTaskPushNotificationConfig', 'resources/peer'];

// Every launch starts at once (each `mur run` takes a moment to load); the tests read the results.
// Three launches cover every case: the loader reports every refusal in a file, each at its own key path.
let launches: { retired: Promise<string>; unknown: Promise<string>; mixed: Promise<string> };
before(() => {
  launches = {
    retired: refused({ reader: ['GetTask', ...RETIRED.map(([old]) => old)] }),
    unknown: refused({ reader: UNKNOWN }),
    mixed: refused({ operator: ['GetTask'], one: ['message/send', 'Foo'], two: ['ListTasks', 'tasks/get'] }),
  };
  // Rejections are awaited by the tests.
  for (const p of Object.values(launches)) p.catch(() => undefined);
});

describe('credential scopes', () => {
  test('scope message/send (A2A 0.3): exit 2, naming the key path and the rule', async () => {
    const stderr = await launches.retired;
    assert.match(stderr, /network\.authentication\.credentials\.reader\.scopes\.1: 'message\/send' is an A2A 0\.3 scope name; .*'SendMessage'/, stderr);
  });

  test('scope Foo: exit 2, naming the key path and the rule (the scopes there are)', async () => {
    const stderr = await launches.unknown;
    const line = stderr.split('\n').find((l) => l.includes('network.authentication.credentials.reader.scopes.0'));
    assert.ok(line, stderr);
    assert.match(line, /scopes\.0: unknown scope 'Foo'/);
    for (const valid of ['SendMessage', 'SendStreamingMessage', 'murmur.WatchSession', 'GetTask', 'ListTasks', 'CancelTask', 'SubscribeToTask', 'murmur.StopSession', 'resources/files']) {
      assert.ok(line.includes(valid), `the rule lists ${valid}: ${line}`);
    }
  });

  test('every A2A 0.3 or old murmur scope name is refused, naming the v1.0 name', async () => {
    const stderr = await launches.retired;
    for (const [i, [old, renamed]] of RETIRED.entries()) {
      assert.match(stderr, new RegExp(`network\\.authentication\\.credentials\\.reader\\.scopes\\.${i + 1}: '${escapeRe(old)}' is an A2A 0\\.3 scope name.*'${escapeRe(renamed)}'`), stderr);
    }
    assert.doesNotMatch(stderr, /scopes\.0:/, 'GetTask is accepted');
  });

  test('a case variant, GetExtendedAgentCard, a push config method or another plane is not a scope', async () => {
    const stderr = await launches.unknown;
    for (const [i, scope] of UNKNOWN.entries()) {
      assert.match(stderr, new RegExp(`network\\.authentication\\.credentials\\.reader\\.scopes\\.${i}: unknown scope '${escapeRe(scope)}'`), stderr);
    }
  });

  test('every refusal in the file is reported, each at its own key path', async () => {
    const stderr = await launches.mixed;
    assert.match(stderr, /network\.authentication\.credentials\.one\.scopes\.0: /);
    assert.match(stderr, /network\.authentication\.credentials\.one\.scopes\.1: /);
    assert.match(stderr, /network\.authentication\.credentials\.two\.scopes\.1: /);
    assert.doesNotMatch(stderr, /credentials\.two\.scopes\.0/);
    assert.match(stderr, /credentials\.one\.scopes\.0: 'message\/send' is an A2A 0\.3 scope name/);
    assert.match(stderr, /credentials\.one\.scopes\.1: unknown scope 'Foo'/);
  });

  test('a declared credential named operator is refused: the operator is the runtime’s own', async () => {
    const stderr = await launches.mixed;
    const line = stderr.split('\n').find((l) => l.includes('network.authentication.credentials.operator'));
    assert.ok(line, `names the key path: ${stderr}`);
    assert.match(line, /network\.authentication\.credentials\.operator: .*'operator'.*(runtime|reserved).*declared/, `names the rule: ${stderr}`);
  });

  test('the v1.0 names are accepted, resources/files included', async () => {
    const home = tempDir('home');
    const scopes = ['SendMessage', 'SendStreamingMessage', 'murmur.WatchSession', 'GetTask', 'ListTasks', 'CancelTask', 'SubscribeToTask', 'murmur.StopSession', 'resources/files'];
    const dir = makeCapsule(manifestYaml({ name: 'accepted', extra: authBlock({ everything: scopes }) }), SCRIPT);
    const door = await runDoor(dir, [], home);
    try {
      assert.match(door.sessionId, /^ses_/);
    } finally {
      await door.stop();
    }
  });
});
