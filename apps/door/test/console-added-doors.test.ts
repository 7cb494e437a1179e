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
import { consoleCommand } from '../src/cli/console-command.js';
import { addedDoor } from '../src/console-server/added-doors.js';
import { doorSettings } from '../src/config/settings.js';
import { startConsoleServer } from '../src/console-server/console-server.js';
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
    const operator = (JSON.parse(readFileSync(path.join(door.recordsDir, 'tokens.json'), 'utf8')) as { tokens: { credential: string; token: string }[] }).tokens.find(
      (t) => t.credential === 'operator',
    )!.token;
    const tokenFile = path.join(tempDir('token'), 'operator.token');
    writeFileSync(tokenFile, `${operator}\n`);
    const dist = tempDir('dist');
    writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>console</title>');
    const added = addedDoor(door.url, tokenFile);
    key = added.key;
    const started = await startConsoleServer({ host: '127.0.0.1', port: 0, dist, doors: [added], settings: doorSettings() });
    consoleUrl = started.url;
    close = () => started.server.close();
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

  test('a --token-file belongs to the --door before it; a bad URL is a usage error', async () => {
    await assert.rejects(consoleCommand(['--token-file', 'x'], () => undefined), /--token-file follows the --door/);
    await assert.rejects(consoleCommand(['--door', 'ftp://x:1'], () => undefined), /http or https URL/);
  });
});
