/**
 * network.authentication.credentials in murmur.yaml (seed 000, "Migrating from A2A 0.3" and "Tokens"): a scope is a
 * door method's v1.0 name or resources/files; an A2A 0.3 name, an old murmur name or any other string is refused,
 * and so is a declared credential named operator. `mur run` exits 2 naming, in the one config format, the key path,
 * the value found and what is allowed there, and starts nothing.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { authBlock, mur } from './support/auth.js';
import { makeCapsule, manifestYaml, runDoor, tempDir } from './support/door-process.js';

const SCRIPT = 'default:\n  turns:\n    - answer: ok\n';

/** Runs `mur run` on a capsule with the given credentials; it must exit 2 before announcing. Resolves with the refusal. */
async function refused(credentials: Record<string, readonly string[]>): Promise<string> {
  const home = tempDir('home');
  const dir = makeCapsule(manifestYaml({ name: 'refused', extra: authBlock(credentials) }), SCRIPT);
  const result = await mur(['run', dir, '--json'], home);
  assert.equal(result.code, 2, `exit code; stderr: ${result.stderr}`);
  assert.equal(result.stdout, '', 'nothing announced');
  assert.match(result.stderr, /^mur: /);
  const file = path.join(dir, 'murmur.yaml');
  assert.ok(result.stderr.includes(file), `names the file: ${result.stderr}`);
  const sessions = path.join(home, 'sessions');
  assert.ok(!existsSync(sessions) || readdirSync(sessions).length === 0, 'no session registered');
  // The refusal in the one config format (docs/cli.md, "What a refusal names"): the file, then a line per bad key.
  return result.stderr.slice(result.stderr.indexOf(`mur: ${file}:\n`)).replace(`mur: ${file}:\n`, 'mur: <file>:\n');
}

const ALL_SCOPES =
  '"SendMessage", "SendStreamingMessage", "murmur.WatchSession", "GetTask", "ListTasks", "CancelTask", "SubscribeToTask", "murmur.StopSession", "resources/files", "resources/records"';
const retiredLine = (credential: string, i: number, old: string, renamed: string) =>
  `  network.authentication.credentials.${credential}.scopes[${i}]: found "${old}" (an A2A 0.3 scope name; this runtime speaks A2A v1.0); allowed: its A2A v1.0 name "${renamed}"`;
const unknownLine = (credential: string, i: number, scope: string) =>
  `  network.authentication.credentials.${credential}.scopes[${i}]: found ${JSON.stringify(scope)}; allowed: one of ${ALL_SCOPES}`;
const OPERATOR_LINE =
  '  network.authentication.credentials.operator: found the key "operator"; allowed: any name but "operator", the runtime\'s own credential, which cannot be declared';
const refusal = (lines: string[]) => `mur: <file>:\n${lines.join('\n')}\n`;

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
  test('scope message/send (A2A 0.3): exit 2, naming the key path, the value and its v1.0 name', async () => {
    const stderr = await launches.retired;
    assert.ok(stderr.split('\n').includes(retiredLine('reader', 1, 'message/send', 'SendMessage')), stderr);
  });

  test('scope Foo: exit 2, naming the key path, the value and the scopes there are', async () => {
    const stderr = await launches.unknown;
    assert.ok(stderr.split('\n').includes(unknownLine('reader', 0, 'Foo')), stderr);
  });

  test('every A2A 0.3 or old murmur scope name is refused, naming the v1.0 name', async () => {
    // GetTask (scopes[0]) is accepted: no line names it.
    assert.equal(await launches.retired, refusal(RETIRED.map(([old, renamed], i) => retiredLine('reader', i + 1, old, renamed))));
  });

  test('a case variant, GetExtendedAgentCard, a push config method or another plane is not a scope', async () => {
    assert.equal(await launches.unknown, refusal(UNKNOWN.map((scope, i) => unknownLine('reader', i, scope))));
  });

  test('every refusal in the file is reported, each at its own key path', async () => {
    assert.equal(
      await launches.mixed,
      refusal([
        OPERATOR_LINE,
        retiredLine('one', 0, 'message/send', 'SendMessage'),
        unknownLine('one', 1, 'Foo'),
        retiredLine('two', 1, 'tasks/get', 'GetTask'),
      ]),
    );
  });

  test('a declared credential named operator is refused: the operator is the runtime’s own', async () => {
    assert.ok((await launches.mixed).split('\n').includes(OPERATOR_LINE));
  });

  test('the v1.0 names are accepted, resources/files included', async () => {
    const home = tempDir('home');
    const scopes = [
      'SendMessage',
      'SendStreamingMessage',
      'murmur.WatchSession',
      'GetTask',
      'ListTasks',
      'CancelTask',
      'SubscribeToTask',
      'murmur.StopSession',
      'resources/files',
    ];
    const dir = makeCapsule(manifestYaml({ name: 'accepted', extra: authBlock({ everything: scopes }) }), SCRIPT);
    const door = await runDoor(dir, [], home);
    try {
      assert.match(door.sessionId, /^ses_/);
    } finally {
      await door.stop();
    }
  });
});
