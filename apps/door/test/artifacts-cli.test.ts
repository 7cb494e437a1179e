/**
 * mur pack, publish, pull, list and remove (docs/artifacts.md, "The operators' commands"; docs/cli.md): their lines,
 * their --json, and their exit codes — 0 done, 1 a place that could not be read or failed a check, 2 a refused
 * artifact, a name nothing holds, a lock conflict or a bad command line.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { answerWat, componentOf, mur, nativeTool, projectStore, readLockFile, skill, wasmTool } from './support/artifacts.js';
import { makeCapsule, tempDir } from './support/door-process.js';
import { lifecycleManifest } from './support/tasks.js';

describe('the operators’ artifact commands', () => {
  const home = tempDir('home');
  const env = { MURMUR_HOME: home };
  const capsule = makeCapsule(lifecycleManifest());
  const run = (...args: string[]) => mur(args, env);

  test('mur pack: the archive and its digest; the same folder packs to the same bytes', async () => {
    const folder = nativeTool('acme/echo', 'cat');
    const out = path.join(tempDir('out'), 'echo.tgz');
    const packed = await run('pack', folder, '--out', out, '--json');
    assert.equal(packed.code, 0, packed.stderr);
    const answer = JSON.parse(packed.stdout);
    assert.deepEqual([answer.artifact, answer.version, answer.archive], ['acme/echo', '1.0.0', out]);
    assert.match(answer.digest, /^sha256:[0-9a-f]{64}$/);
    const again = path.join(tempDir('out'), 'again.tgz');
    assert.equal((await run('pack', folder, '--out', again)).code, 0);
    assert.deepEqual(readFileSync(again), readFileSync(out));
    const text = await run('pack', folder, '--out', again);
    assert.equal(text.stdout, `packed acme/echo 1.0.0 into ${again}\ndigest ${answer.digest}\n`);
  });

  test('mur pack refuses a folder that is not an artifact: exit 2', async () => {
    const linked = skill('acme/linked', 'text');
    symlinkSync('/etc/passwd', path.join(linked, 'passwd'));
    const refused = await run('pack', linked);
    assert.equal(refused.code, 2);
    assert.equal(refused.stderr, 'mur: passwd is a symbolic link: an artifact holds regular files and folders only\n');
    const liar = wasmTool('acme/liar', new TextEncoder().encode('not a component'));
    const role = await run('pack', liar);
    assert.equal(role.code, 2);
    assert.equal(role.stderr, 'mur: acme/liar 1.0.0 says runtime: tool, implementation: wasm, and its entry tool.wasm is not a WebAssembly component\n');
    const bad = skill('Acme/Bad', 'x');
    const named = await run('pack', bad);
    assert.equal(named.code, 2);
    assert.match(named.stderr, /murmur\.yaml:? .*name: found "Acme\/Bad"; allowed: a full name <scope>\/<name>/);
  });

  test('mur publish into the project store, a WASM tool with the WIT level its component says; a published version never changes', async () => {
    const published = await run('publish', wasmTool('acme/answer', await componentOf(answerWat('42'))), '--capsule', capsule, '--json');
    assert.equal(published.code, 0, published.stderr);
    const answer = JSON.parse(published.stdout);
    assert.deepEqual([answer.artifact, answer.store, answer.wit], ['acme/answer', projectStore(capsule), '0.1']);
    assert.match(readFileSync(path.join(projectStore(capsule), 'acme', 'answer', '1.0.0.yaml'), 'utf8'), /wit: "0\.1"/);
    const other = await run('publish', wasmTool('acme/answer', await componentOf(answerWat('43'))), '--capsule', capsule);
    assert.equal(other.code, 2);
    assert.match(
      other.stderr,
      /^mur: the project store already holds acme\/answer 1\.0\.0 as sha256:[0-9a-f]{64}: a published version never changes; publish a new version\n$/,
    );
    const global = await run('publish', skill('acme/shared', 'shared'), '--store', 'global', '--json');
    assert.equal(global.code, 0, global.stderr);
    assert.ok(existsSync(path.join(home, 'store', 'acme', 'shared', '1.0.0.tgz')));
  });

  test('mur pull pins with origin: operator; mur list shows what the lock pins', async () => {
    const pulled = await run('pull', 'acme/answer', '--capsule', capsule);
    assert.equal(pulled.code, 0, pulled.stderr);
    assert.match(pulled.stdout, /^pinned acme\/answer 1\.0\.0 \(sha256:[0-9a-f]{64}\) from the project store\n$/);
    assert.equal((await run('pull', 'acme/shared@1.0.0', '--capsule', capsule, '--json')).code, 0);
    const listed = await run('list', '--capsule', capsule, '--json');
    assert.equal(listed.code, 0);
    const { artifacts } = JSON.parse(listed.stdout);
    assert.deepEqual(
      artifacts.map((a: Record<string, string>) => [a.artifact, a.version, a.runtime, a.origin, a.fetchedFrom]),
      [
        ['acme/answer', '1.0.0', 'tool', 'operator', 'project store'],
        ['acme/shared', '1.0.0', 'skill', 'operator', 'global store'],
      ],
    );
    const text = await run('list', '--capsule', capsule);
    const lines = text.stdout.trimEnd().split('\n');
    assert.match(lines[0]!, /^NAME\s+VERSION\s+RUNTIME\s+ORIGIN\s+FROM\s+DIGEST$/);
    assert.match(lines[1]!, /^acme\/answer\s+1\.0\.0\s+tool\s+operator\s+project store\s+sha256:[0-9a-f]{64}$/);
    assert.equal(lines.length, 3);
  });

  test('mur pull refuses what pull-artifact refuses: nothing holds it (exit 2), another version than the pin (exit 2), a tampered store (exit 1)', async () => {
    const missing = await run('pull', 'acme/missing', '--capsule', capsule);
    assert.deepEqual([missing.code, missing.stderr], [2, 'mur: not-found: no allowed place (project store, global store) holds acme/missing\n']);
    assert.equal((await run('publish', skill('acme/shared', 'newer', { version: '2.0.0' }), '--store', 'global')).code, 0);
    const conflict = await run('pull', 'acme/shared@2.0.0', '--capsule', capsule);
    assert.equal(conflict.code, 2);
    assert.match(
      conflict.stderr,
      /^mur: murmur\.lock conflict for 'acme\/shared': murmur\.lock pins 1\.0\.0 \(sha256:[0-9a-f]{12}…\), and this pull asks for 2\.0\.0\n$/,
    );
    assert.equal((await run('publish', skill('acme/tampered', 'text'), '--capsule', capsule)).code, 0);
    const record = path.join(projectStore(capsule), 'acme', 'tampered', '1.0.0.yaml');
    writeFileSync(record, readFileSync(record, 'utf8').replace(/sha256:[0-9a-f]{64}/, `sha256:${'0'.repeat(64)}`));
    const tampered = await run('pull', 'acme/tampered', '--capsule', capsule);
    assert.equal(tampered.code, 1);
    assert.match(
      tampered.stderr,
      /^mur: not-fetched: the project store's archive of acme\/tampered 1\.0\.0 does not match its recorded digest \(sha256:000000000000… recorded, sha256:[0-9a-f]{12}… found\)\n$/,
    );
  });

  test('mur remove takes a pin out, whatever its origin; a name the lock does not pin is exit 2', async () => {
    const removed = await run('remove', 'acme/shared', '--capsule', capsule, '--json');
    assert.equal(removed.code, 0, removed.stderr);
    assert.deepEqual(JSON.parse(removed.stdout), { artifact: 'acme/shared', version: '1.0.0', removed: true });
    assert.doesNotMatch(readLockFile(capsule), /acme\/shared/);
    const again = await run('remove', 'acme/shared', '--capsule', capsule);
    assert.deepEqual([again.code, again.stderr], [2, 'mur: murmur.lock pins no acme/shared\n']);
    const usage = await run('remove', 'not-a-name', '--capsule', capsule);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /^mur: usage: mur remove NAME/);
  });
});
