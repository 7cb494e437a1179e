/**
 * Door tokens (seed 000, "Tokens"): minted at launch, stored in the records folder readable by its owner alone,
 * printed by mur token, replaced by a --resume (the old ones answer 401), and never written anywhere else: not in
 * trace.jsonl, logs/door.log, the registry entry, or the door's stdout and stderr.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  as,
  assertInvalidToken,
  assertRpcResult,
  authBlock,
  captureOutput,
  message,
  type MintedToken,
  mur,
  openAs,
  raw,
  RPC_HEADERS,
  readTokensFile,
  envelope,
  sendAs,
  tokensOf,
} from './support/auth.js';
import { type DoorProcess, makeCapsule, manifestYaml, runDoor } from './support/door-process.js';

const REALM = 'token-keeper';
const SCRIPT = `
rules:
  - match: '^fail'
    turns:
      - fail: "it failed on purpose"
default:
  turns:
    - text: ["hello"]
      answer: done
`;

let first: DoorProcess;
let resumed: DoorProcess | null = null;
let firstOutput: { stdout(): string; stderr(): string };
let resumedOutput: { stdout(): string; stderr(): string } | null = null;
let firstTokens: MintedToken[];
let firstControl: string;
const controlTokenOf = (door: DoorProcess): string => JSON.parse(readFileSync(path.join(door.recordsDir, 'control-token.json'), 'utf8')).token;

before(async () => {
  const dir = makeCapsule(
    manifestYaml({
      name: REALM,
      extra: authBlock({ watcher: ['GetTask', 'ListTasks', 'murmur.WatchSession'], submitter: ['SendMessage', 'SendStreamingMessage', 'GetTask'] }),
    }),
    SCRIPT,
  );
  first = await runDoor(dir);
  firstOutput = captureOutput(first);
  firstTokens = readTokensFile(first.recordsDir);
  firstControl = controlTokenOf(first);
});
after(async () => {
  await Promise.all([first?.stop(), resumed?.stop()]);
});

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(full));
    else if (entry.isFile()) out.push(full);
  }
  return out;
}

/** Asserts that no token appears in the named places, nor in any file under MURMUR_HOME but tokens.json. */
function assertNoLeak(door: DoorProcess, output: { stdout(): string; stderr(): string }, tokens: string[], what: string): void {
  const places: Array<[string, string]> = [
    ['trace.jsonl', readFileSync(path.join(door.recordsDir, 'trace.jsonl'), 'utf8')],
    ['logs/door.log', readFileSync(path.join(door.recordsDir, 'logs', 'door.log'), 'utf8')],
    ['stdout', output.stdout()],
    ['stderr', output.stderr()],
    ['the announcement', JSON.stringify({ sessionId: door.sessionId, url: door.url, recordsDir: door.recordsDir })],
  ];
  const registry = path.join(door.home, 'sessions');
  const entries = readdirSync(registry).filter((f) => f.endsWith('.json'));
  assert.ok(entries.length > 0, 'a registry entry exists');
  for (const f of entries) places.push([`sessions/${f}`, readFileSync(path.join(registry, f), 'utf8')]);
  assert.ok(places[0][1].length > 0 && places[1][1].length > 0, `${what}: the trace and the door log have entries`);
  for (const token of tokens) {
    for (const [name, text] of places) assert.equal(text.includes(token), false, `${what}: a token is in ${name}`);
  }
  // Every other file under MURMUR_HOME (the task store included), byte for byte.
  for (const file of filesUnder(door.home)) {
    if (path.basename(file) === 'tokens.json' || path.basename(file) === 'control-token.json') continue;
    const bytes = readFileSync(file);
    for (const token of tokens) assert.equal(bytes.includes(Buffer.from(token)), false, `${what}: a token is in ${file}`);
  }
}

/** Requests of every kind carrying the tokens, refused ones included, so that every log line a request can cause is written. */
async function exercise(door: DoorProcess): Promise<void> {
  const t = tokensOf(door);
  assertRpcResult(await sendAs(door.url, t.submitter, 'hello'), 'submitter SendMessage');
  assertRpcResult(await sendAs(door.url, t.operator, 'fail now'), 'operator SendMessage fail');
  assertRpcResult(await as(door.url, t.watcher, 'ListTasks', {}), 'watcher ListTasks');
  assert.equal((await as(door.url, t.watcher, 'SendMessage', { message: message('x') })).status, 403);
  const stream = await openAs(door.url, t.submitter, 'SendStreamingMessage', { message: message('streamed') });
  if (stream.kind === 'stream') await stream.stream.ended;
  const watch = await openAs(door.url, t.watcher, 'murmur.WatchSession', {});
  if (watch.kind === 'stream') {
    await watch.stream.until((e) => e.length > 0, 'ack');
    watch.stream.abort();
  }
  for (const token of Object.values(t)) {
    for (const authorization of [`Bearer ${token}x`, `Basic ${token}`, `Bearer ${token.toLowerCase()}`, token, `Bearer  ${token}`]) {
      assert.equal(
        (await raw(door.url, { method: 'POST', path: '/', headers: { ...RPC_HEADERS, authorization }, body: envelope('ListTasks', {}) })).status,
        401,
      );
    }
    assert.equal(
      (
        await raw(door.url, {
          method: 'POST',
          path: '/',
          headers: { ...RPC_HEADERS, authorization: [`Bearer ${token}`, `Bearer ${token}`] },
          body: envelope('ListTasks', {}),
        })
      ).status,
      401,
    );
    assert.equal((await raw(door.url, { method: 'GET', path: `/${token}`, headers: { authorization: `Bearer ${token}` } })).status, 404);
    assert.equal(
      (await raw(door.url, { method: 'POST', path: '/', headers: { ...RPC_HEADERS, authorization: `Bearer ${token}` }, body: '{"not json' })).status,
      200,
    );
  }
  // Let the door flush its logs.
  await new Promise((r) => setTimeout(r, 100));
}

describe('tokens', () => {
  test('tokens.json is mode 0600 and holds {tokens: [{credential, scopes, token}]}, the operator first', () => {
    const file = path.join(first.recordsDir, 'tokens.json');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const parsed = JSON.parse(readFileSync(file, 'utf8'));
    assert.deepEqual(Object.keys(parsed), ['tokens']);
    assert.deepEqual(
      parsed.tokens.map((t: MintedToken) => [t.credential, t.scopes]),
      [
        ['operator', 'all'],
        ['watcher', ['GetTask', 'ListTasks', 'murmur.WatchSession']],
        ['submitter', ['SendMessage', 'SendStreamingMessage', 'GetTask']],
      ],
    );
    for (const t of parsed.tokens) {
      assert.deepEqual(Object.keys(t).sort(), ['credential', 'scopes', 'token']);
      assert.match(t.token, /^[A-Za-z0-9._~+/-]{32,}=*$/, 'a bearer token (RFC 6750 b64token) of at least 32 characters');
    }
    assert.equal(new Set(parsed.tokens.map((t: MintedToken) => t.token)).size, 3);
  });

  test('mur token --json prints the session, its address and its tokens', async () => {
    const [bare, named, text] = await Promise.all([
      mur(['token', '--json'], first.home),
      mur(['token', first.sessionId, '--json'], first.home),
      mur(['token'], first.home),
    ]);
    assert.equal(bare.code, 0, bare.stderr);
    const control = JSON.parse(readFileSync(path.join(first.recordsDir, 'control-token.json'), 'utf8'));
    assert.deepEqual(JSON.parse(bare.stdout), { sessionId: first.sessionId, url: first.url, tokens: firstTokens, control });
    assert.equal(named.code, 0, named.stderr);
    assert.deepEqual(JSON.parse(named.stdout), JSON.parse(bare.stdout));
    assert.equal(text.code, 0, text.stderr);
    for (const t of firstTokens) assert.match(text.stdout, new RegExp(`^${t.credential}\\s+${t.token.replace(/[-+/.]/g, '\\$&')}\\b`, 'm'));
  });

  test('every minted token is accepted by this run', async () => {
    for (const t of firstTokens) assertRpcResult(await as(first.url, t.token, 'GetExtendedAgentCard'), t.credential);
  });

  test('no token is written to the trace, the door log, the registry entry, or the door’s output', async () => {
    await exercise(first);
    assertNoLeak(first, firstOutput, [...firstTokens.map((t) => t.token), firstControl], 'first run');
  });

  test('a --resume mints new tokens; the old ones answer 401 invalid_token', async () => {
    await first.stop();
    resumed = await runDoor(first.capsuleDir, ['--resume', first.sessionId], first.home);
    resumedOutput = captureOutput(resumed);
    assert.equal(resumed.sessionId, first.sessionId);
    const fresh = readTokensFile(resumed.recordsDir);
    assert.equal(statSync(path.join(resumed.recordsDir, 'tokens.json')).mode & 0o777, 0o600);
    assert.deepEqual(
      fresh.map((t) => t.credential),
      firstTokens.map((t) => t.credential),
    );
    for (const t of fresh)
      assert.equal(
        firstTokens.some((old) => old.token === t.token),
        false,
        `${t.credential}: a new token`,
      );
    for (const old of firstTokens) assertInvalidToken(await as(resumed.url, old.token, 'ListTasks', {}), REALM, `old ${old.credential} token`);
    for (const t of fresh) assertRpcResult(await as(resumed.url, t.token, 'GetExtendedAgentCard'), `new ${t.credential} token`);
    // The control token is minted anew too (docs/control.md): the old one is refused by the control surface.
    const oldControl = firstControl;
    assert.notEqual(controlTokenOf(resumed), oldControl);
    const refused = await fetch(`${resumed.url}/control`, { headers: { authorization: `Bearer ${oldControl}` } });
    assert.equal(refused.status, 401);
    assert.equal(((await refused.json()) as { error: string }).error, 'invalid_token');
    const printed = await mur(['token', '--json'], resumed.home);
    assert.equal(printed.code, 0, printed.stderr);
    assert.deepEqual(JSON.parse(printed.stdout).tokens, fresh);
  });

  test('after the resume: neither the old tokens nor the new ones are written anywhere but tokens.json', async () => {
    assert.ok(resumed && resumedOutput);
    await exercise(resumed);
    const all = [...firstTokens, ...readTokensFile(resumed.recordsDir)].map((t) => t.token);
    assertNoLeak(resumed, resumedOutput, all, 'resumed run');
    const stored = readFileSync(path.join(resumed.recordsDir, 'tokens.json'), 'utf8');
    for (const old of firstTokens) assert.equal(stored.includes(old.token), false, 'the old tokens are gone from tokens.json');
  });
});
