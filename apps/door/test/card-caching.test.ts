/**
 * The card's HTTP caching (A2A v1.0 §8.6.1; docs/auth.md, "Cards"), on real doors: the public card carries
 * `Cache-Control: public, max-age=60` and a strong ETag, the SHA-256 of its bytes, stable across reads and different
 * for a different card; If-None-Match naming it is answered 304 with an empty body, anything else 200 with the card.
 * The extended card carries `Cache-Control: private, max-age=60` and its own ETag, and stays a 200 JSON-RPC answer.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { as, CARD_PATH, raw, tokensOf } from './support/auth.js';
import { type DoorProcess, makeCapsule, runDoor } from './support/door-process.js';

const SCRIPT = 'default:\n  turns:\n    - answer: ok\n';
const manifest = (name: string, authenticated = false) =>
  [
    `name: ${name}`,
    'version: 0.1.0',
    'inference:',
    '  driver: script',
    '  script: script.yaml',
    ...(authenticated ? ['network:', '  authentication:', '    scheme: bearer', '    credentials:', '      watcher:', '        scopes: [GetTask]'] : []),
    '',
  ].join('\n');

const etagOf = (bytes: string) => `"${createHash('sha256').update(bytes).digest('base64url')}"`;
const getCard = (door: DoorProcess, headers: Record<string, string | string[]> = {}, method = 'GET') => raw(door.url, { method, path: CARD_PATH, headers });

let first: DoorProcess;
let second: DoorProcess;
let authed: DoorProcess;

before(async () => {
  [first, second, authed] = await Promise.all([
    runDoor(makeCapsule(manifest('cached-agent'), SCRIPT)),
    runDoor(makeCapsule(manifest('cached-agent'), SCRIPT)),
    runDoor(makeCapsule(manifest('guarded-agent', true), SCRIPT)),
  ]);
});
after(async () => {
  await Promise.all([first?.stop(), second?.stop(), authed?.stop()]);
});

describe('the public card', () => {
  test('carries Cache-Control public, max-age=60 and the SHA-256 of its bytes as a strong ETag, the same on every read', async () => {
    const answer = await getCard(first);
    assert.equal(answer.status, 200);
    assert.equal(answer.headers['cache-control'], 'public, max-age=60');
    assert.equal(answer.headers.etag, etagOf(answer.text));
    assert.match(String(answer.headers.etag), /^"[A-Za-z0-9_-]{43}"$/);
    const again = await getCard(first, { 'A2A-Version': '1.0' });
    assert.equal(again.text, answer.text);
    assert.equal(again.headers.etag, answer.headers.etag);
  });

  test('a different card has a different ETag: another session of the same capsule, and an authenticated door', async () => {
    const tags = await Promise.all([first, second, authed].map(async (door) => (await getCard(door)).headers.etag));
    assert.equal(new Set(tags).size, 3, tags.join(' '));
  });

  test('If-None-Match naming the ETag is answered 304 with an empty body, the ETag and the Cache-Control', async () => {
    const { headers } = await getCard(first);
    const etag = String(headers.etag);
    const matching: Array<string | string[]> = [etag, `W/${etag}`, `"elsewhere", ${etag}`, ['"elsewhere"', etag], '*'];
    for (const value of matching) {
      const answer = await getCard(first, { 'if-none-match': value });
      assert.equal(answer.status, 304, JSON.stringify(value));
      assert.equal(answer.text, '', JSON.stringify(value));
      assert.equal(answer.headers.etag, etag);
      assert.equal(answer.headers['cache-control'], 'public, max-age=60');
    }
    const head = await getCard(first, { 'if-none-match': etag }, 'HEAD');
    assert.equal(head.status, 304);
  });

  test('If-None-Match naming anything else is answered 200 with the card', async () => {
    const card = await getCard(first);
    const other = String((await getCard(second)).headers.etag);
    for (const value of [other, '"nothing"', String(card.headers.etag).slice(0, -2) + '"', '']) {
      const answer = await getCard(first, { 'if-none-match': value });
      assert.equal(answer.status, 200, value);
      assert.equal(answer.text, card.text);
      assert.equal(answer.headers.etag, card.headers.etag);
    }
  });

  test('an authenticated door serves its public card the same way, whatever Authorization the GET carries', async () => {
    const plain = await getCard(authed);
    assert.equal(plain.headers['cache-control'], 'public, max-age=60');
    assert.equal(plain.headers.etag, etagOf(plain.text));
    const withToken = await getCard(authed, { authorization: `Bearer ${tokensOf(authed).operator}`, 'if-none-match': String(plain.headers.etag) });
    assert.equal(withToken.status, 304);
  });
});

describe('the extended card', () => {
  test('carries Cache-Control private, max-age=60 and the SHA-256 of the result bytes, for every token alike', async () => {
    const tokens = tokensOf(authed);
    const answers = await Promise.all([tokens.operator, tokens.watcher].map((token) => as(authed.url, token, 'GetExtendedAgentCard')));
    for (const answer of answers) {
      assert.equal(answer.status, 200);
      assert.equal(answer.headers['cache-control'], 'private, max-age=60');
      assert.equal(answer.headers.etag, etagOf(JSON.stringify(answer.json.result)));
    }
    assert.equal(answers[0].headers.etag, answers[1].headers.etag);
    assert.notEqual(answers[0].headers.etag, (await getCard(authed)).headers.etag);
  });

  test('stays a 200 JSON-RPC answer when If-None-Match names its ETag', async () => {
    const token = tokensOf(authed).operator;
    const firstRead = await as(authed.url, token, 'GetExtendedAgentCard');
    const again = await as(authed.url, token, 'GetExtendedAgentCard', undefined, { 'if-none-match': String(firstRead.headers.etag) });
    assert.equal(again.status, 200);
    assert.deepEqual(again.json.result, firstRead.json.result);
  });

  test('a refusal carries no card caching headers', async () => {
    const refused = await raw(authed.url, {
      method: 'POST',
      path: '/',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: '{"jsonrpc":"2.0","id":1,"method":"GetExtendedAgentCard"}',
    });
    assert.equal(refused.status, 401);
    assert.equal(refused.headers.etag, undefined);
    assert.equal(refused.headers['cache-control'], undefined);
  });
});
