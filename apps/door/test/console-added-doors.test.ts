/**
 * `mur console --door URL [--token-file F]` (docs/cli.md): a door not registered on this host — here one listening on
 * a non-loopback address of this machine — is listed at GET /api/doors and proxied by its exact host:port, with its
 * token file's bearer token; any other non-loopback host is still refused.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { ConsoleDoorsResponse } from '@murmur/protocol';
import { runMur } from './support/client-cli.js';
import { startTestConsole } from './support/console.js';
import { type DoorProcess, REPO_ROOT, runDoor, tempDir } from './support/door-process.js';

/** A non-loopback IPv4 address of this machine, or null (then the suite skips). */
function outsideAddress(): string | null {
  for (const list of Object.values(os.networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return null;
}

const outside = outsideAddress();

describe('mur console --door', { skip: outside === null ? 'no non-loopback IPv4 address on this machine' : false }, () => {
  let door: DoorProcess;
  let consoleUrl: string;
  let close: () => Promise<void>;
  let key: string;

  before(async () => {
    door = await runDoor(path.join(REPO_ROOT, 'examples/secure'), ['--host', outside!]);
    const operator = (
      JSON.parse(readFileSync(path.join(door.recordsDir, 'tokens.json'), 'utf8')) as { tokens: { credential: string; token: string }[] }
    ).tokens.find((t) => t.credential === 'operator')!.token;
    const tokenFile = path.join(tempDir('token'), 'operator.token');
    writeFileSync(tokenFile, `${operator}\n`);
    // docs/cli.md: an added door is named by its host:port.
    key = new URL(door.url).host;
    const started = await startTestConsole(tempDir('home'), { doors: [{ url: door.url, tokenFile }] });
    consoleUrl = started.url;
    close = started.close;
  });
  after(async () => {
    await close?.();
    await door?.stop();
  });

  test('lists the added door without its token', async () => {
    const body = (await (await fetch(`${consoleUrl}/api/doors`)).json()) as ConsoleDoorsResponse;
    assert.deepEqual(body, { doors: [{ key, url: door.url, hasToken: true }] });
    assert.ok(!JSON.stringify(body).includes('mur_'));
  });

  test('proxies to it by its host:port, sending the token file’s bearer token', async () => {
    const answer = await fetch(`${consoleUrl}/api/door/${key}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} }),
    });
    assert.equal(answer.status, 200);
    const body = (await answer.json()) as { result?: { tasks: unknown[] } };
    assert.ok(Array.isArray(body.result?.tasks), JSON.stringify(body));
  });

  test('never sends the token file’s door token to the control surface: only the browser’s token goes there', async () => {
    const bare = await fetch(`${consoleUrl}/api/door/${key}/control`);
    assert.equal(bare.status, 401);
    assert.equal(((await bare.json()) as { error: string }).error, 'unauthenticated');
    const control = (JSON.parse(readFileSync(path.join(door.recordsDir, 'control-token.json'), 'utf8')) as { token: string }).token;
    const given = await fetch(`${consoleUrl}/api/door/${key}/control?fresh=1`, { headers: { authorization: `Bearer ${control}` } });
    assert.equal(given.status, 200);
    assert.equal(((await given.json()) as { sessionId: string }).sessionId, door.sessionId);
  });

  test('still refuses a non-loopback door that was not added', async () => {
    const answer = await fetch(`${consoleUrl}/api/door/${outside}:${Number(new URL(door.url).port) + 1}/`);
    assert.equal(answer.status, 403);
    assert.equal(((await answer.json()) as { error: string }).error, 'not_loopback');
  });

  test('a --token-file belongs to the --door before it; a bad URL or the same door twice is a usage error', async () => {
    const home = tempDir('home');
    const refused = async (args: string[], message: RegExp) => {
      const result = await runMur(['console', '--port', '0', ...args], home);
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, message);
      assert.equal(result.stdout, '');
    };
    await Promise.all([
      refused(['--token-file', 'x'], /--token-file follows the --door/),
      refused(['--door', 'ftp://x:1'], /http or https URL/),
      refused(['--door', door.url, '--door', door.url], /the same door is given twice/),
    ]);
  });
});
