/**
 * Declared artifacts at staging (docs/artifacts.md, "Declaring artifacts"): a reserved bare name refused with
 * E-CAP-013 whether or not the grant is declared, a name the lock does not pin, a version or a digest the lock does
 * not pin (a tampered store), an owner the lock does not record for the scope, a WIT level that does not fit, an input
 * schema Ajv does not compile — every problem at once, exit 2, nothing served; and seed 004's precedence: a native
 * artifact answers ahead of the shell binary of the same name, the shell binary ahead of a WASM artifact.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse } from 'yaml';
import { answerWat, componentOf, mur, nativeTool, projectStore, publishInto, skill, wasmTool, writeLock } from './support/artifacts.js';
import { taskOf } from './support/assertions.js';
import { type DoorProcess, makeCapsule, runDoor, tempDir } from './support/door-process.js';
import { send } from './support/rpc.js';
import { readTrace } from './support/tasks.js';

const SCRIPT = `
rules:
  - match: '^bash$'
    turns:
      - tools:
          - tool: bash
            input: { command: "echo from the shell" }
        answer: "{{tool.content}}"
  - match: '^sh$'
    turns:
      - tools:
          - tool: sh
            input: { command: "echo from the shell" }
        answer: "{{tool.content}}"
  - match: '^notes$'
    turns:
      - tools:
          - tool: notes
            input: {}
        answer: "{{tool.content}}"
default:
  turns:
    - answer: no rule
`;

const manifest = (artifacts: string[], extra = '') => `name: staged
version: 0.1.0
lifecycle:
  task_acceptance: queue
inference:
  driver: script
  script: script.yaml
artifacts: [${artifacts.join(', ')}]
capabilities:
  shell:
    allow: [bash, sh]
${extra}`;

async function refusedStart(capsule: string): Promise<string> {
  const home = tempDir('home');
  const run = await mur(['run', capsule, '--json'], { MURMUR_HOME: home });
  assert.equal(run.code, 2, run.stderr);
  assert.equal(run.stdout, '', 'nothing is announced');
  return run.stderr;
}

describe('staging refuses', () => {
  test('a reserved bare name, with E-CAP-013, whether or not the grant is declared', async () => {
    const without = makeCapsule(manifest(['murmur/delegate-task', 'acme/fine']), SCRIPT);
    assert.equal(
      await refusedStart(without),
      `mur: ${path.join(without, 'murmur.yaml')}:\n  artifacts[0]: found "murmur/delegate-task"; allowed: E-CAP-013: an artifact whose tool name is not reserved: 'delegate-task' is the name of a runtime-provided tool\n`,
    );
    const granted = makeCapsule(manifest(['ana/pull-artifact'], '  install:\n    tool: ["ana/*"]\n'), SCRIPT);
    assert.equal(
      await refusedStart(granted),
      `mur: ${path.join(granted, 'murmur.yaml')}:\n  artifacts[0]: found "ana/pull-artifact"; allowed: E-CAP-013: an artifact whose tool name is not reserved: 'pull-artifact' is the name of a runtime-provided tool\n`,
    );
  });

  test('every problem of the declared artifacts at once: unpinned, another version, a tampered store, another owner, another WIT level, a schema Ajv does not compile', async () => {
    const capsule = makeCapsule(
      manifest(['acme/unpinned', 'acme/versioned@2.0.0', 'acme/tampered', 'acme/owned', 'acme/levelled', 'acme/uncompiled', 'acme/fine']),
      SCRIPT,
    );
    const store = projectStore(capsule);
    await publishInto(store, skill('acme/unpinned', 'x'));
    const versioned = await publishInto(store, skill('acme/versioned', 'x'));
    const real = await publishInto(store, skill('acme/tampered', 'the text the operator pinned'));
    // The store's archive changed after the pin: its content is another's.
    const other = await publishInto(tempDir('scratch'), skill('acme/tampered', 'a text slipped in later'));
    writeFileSync(real.archive, readFileSync(other.archive));
    const owned = await publishInto(store, skill('acme/owned', 'x'));
    const levelled = await publishInto(store, wasmTool('acme/levelled', await componentOf(answerWat('x', { version: '0.2.0' }), '0.2.0')), '0.2');
    const uncompiled = await publishInto(store, skill('acme/uncompiled', 'x', { input_schema: { type: 'object', properties: { a: { $ref: '#/$defs/a' } } } }));
    const fine = await publishInto(store, skill('acme/fine', 'x'));
    writeLock(
      capsule,
      {
        'acme/versioned': { version: '1.0.0', digest: versioned.digest, runtime: 'skill' },
        'acme/tampered': { version: '1.0.0', digest: real.digest, runtime: 'skill' },
        'acme/owned': { version: '1.0.0', digest: owned.digest, runtime: 'skill', owner: '111' },
        'acme/levelled': { version: '1.0.0', digest: levelled.digest },
        'acme/uncompiled': { version: '1.0.0', digest: uncompiled.digest, runtime: 'skill' },
        'acme/fine': { version: '1.0.0', digest: fine.digest, runtime: 'skill' },
      },
      { acme: { owner: '222' } },
    );
    const stderr = await refusedStart(capsule);
    const lines = stderr.trimEnd().split('\n');
    assert.equal(lines[0], `mur: ${path.join(capsule, 'murmur.yaml')}:`);
    const allowed = 'allowed: an artifact murmur.lock pins, which the project store or the global store holds with the pinned digest, fitting this mur';
    assert.deepEqual(lines.slice(1), [
      `  artifacts[0]: found "acme/unpinned" (murmur.lock pins no acme/unpinned: run mur pull acme/unpinned); ${allowed}`,
      `  artifacts[1]: found "acme/versioned@2.0.0" (murmur.lock conflict for 'acme/versioned': murmur.yaml declares 2.0.0, and murmur.lock pins 1.0.0); ${allowed}`,
      `  artifacts[2]: found "acme/tampered" (not-fetched: the project store's archive of acme/tampered 1.0.0 does not match its recorded digest (${real.digest.slice(0, 19)}… recorded, ${other.digest.slice(0, 19)}… found)); ${allowed}`,
      `  artifacts[3]: found "acme/owned" (murmur.lock pins acme/owned for owner 111, and records owner 222 for its scope); ${allowed}`,
      `  artifacts[4]: found "acme/levelled" (does-not-fit: E-WIT-LEVEL-001: acme/levelled 1.0.0 is built for WIT level 0.2 (it exports murmur:tool/run@0.2.0), and this mur serves WIT level 0.1; no version of acme/levelled fits); ${allowed}`,
      `  artifacts[5]: found "acme/uncompiled" (not-fetched: acme/uncompiled 1.0.0 failed a check: acme/uncompiled 1.0.0's murmur.yaml:   input_schema: found a schema Ajv does not compile (can't resolve reference #/$defs/a from id #); allowed: a JSON Schema that compiles as a call’s input is checked (Ajv, strict mode)); ${allowed}`,
    ]);
  });

  test('a store whose record matches the archive, but not the pin: a lock conflict', async () => {
    const capsule = makeCapsule(manifest(['acme/republished']), SCRIPT);
    const pinned = await publishInto(tempDir('scratch'), skill('acme/republished', 'as first published'));
    await publishInto(projectStore(capsule), skill('acme/republished', 'published again under the same version'));
    writeLock(capsule, { 'acme/republished': { version: '1.0.0', digest: pinned.digest, runtime: 'skill' } });
    assert.match(
      await refusedStart(capsule),
      /artifacts\[0\]: found "acme\/republished" \(murmur\.lock conflict for 'acme\/republished': murmur\.lock pins 1\.0\.0 as sha256:[0-9a-f]{12}…, and the project store holds 1\.0\.0 as sha256:[0-9a-f]{12}…\)/,
    );
  });
});

describe('precedence between artifacts and shell binaries of one name', () => {
  let door: DoorProcess;
  before(async () => {
    const capsule = makeCapsule(manifest(['local/bash', 'wasmy/sh', 'acme/notes']), SCRIPT);
    const store = projectStore(capsule);
    const bash = await publishInto(store, nativeTool('local/bash', 'echo "the bash artifact got $(cat)"'));
    const sh = await publishInto(store, wasmTool('wasmy/sh', await componentOf(answerWat('the sh artifact'))));
    const notes = await publishInto(store, skill('acme/notes', 'Keep notes short.'));
    writeLock(capsule, {
      'local/bash': { version: '1.0.0', digest: bash.digest },
      'wasmy/sh': { version: '1.0.0', digest: sh.digest },
      'acme/notes': { version: '1.0.0', digest: notes.digest, runtime: 'skill' },
    });
    door = await runDoor(capsule);
  });
  after(() => door.stop());

  const answerOf = async (text: string) => taskOf(await send(door.url, text)).artifacts[0].parts[0].text as string;

  test('staging writes the artifact’s manifest and the shell binary yields: the inventory names each once, describing the artifact', () => {
    const start = readTrace(door.recordsDir).find((r) => r.type === 'session_start');
    assert.deepEqual(start?.tools_declared, ['bash', 'sh', 'notes', 'session-status']);
    const staged = parse(readFileSync(path.join(door.recordsDir, 'runtime', 'tools', 'bash', 'murmur.yaml'), 'utf8'));
    assert.equal(staged.name, 'local/bash');
    assert.equal(staged.implementation, 'native');
  });

  test('a native artifact answers ahead of the shell binary', async () => {
    assert.equal(
      await answerOf('bash'),
      '<untrusted-content source=tool:bash>\n$ bash\nExit code: 0\nStdout:\nthe bash artifact got {"command":"echo from the shell"}\n\nStderr:\n\n</untrusted-content>',
    );
  });

  test('the shell binary answers ahead of a WASM artifact', async () => {
    assert.equal(
      await answerOf('sh'),
      '<untrusted-content source=tool:sh>\n$ echo from the shell\nExit code: 0\nStdout:\nfrom the shell\n\nStderr:\n\n</untrusted-content>',
    );
  });

  test('a declared skill reads as its text, unfenced, and writes skill_call', async () => {
    assert.equal(await answerOf('notes'), 'Keep notes short.');
    const call = readTrace(door.recordsDir).find((r) => r.type === 'skill_call');
    assert.deepEqual([call?.skill, call?.artifact, call?.status, call?.exit_code], ['notes', 'acme/notes', 'passed', null]);
  });
});
