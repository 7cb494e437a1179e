/**
 * What `mur run` refuses before anything starts, all in the one config format (docs/cli.md, "What a refusal names"):
 * a bad murmur.yaml, roster.yaml and script file, each naming the file, then per bad key its path, the value found and
 * what is allowed; and a bad environment setting, refused when the process starts (`mur run`, `mur ps`), naming the
 * variable, its value unless it is sensitive, and what is allowed. Real `mur` subprocesses, each in its own MURMUR_HOME.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { spawnMur } from './support/client-cli.js';
import { makeCapsule, manifestYaml, runDoor, tempDir } from './support/door-process.js';
import { makeFormation, memberManifest } from './support/formation.js';
import { refusedRun } from './support/refused-run.js';

const SCRIPT = 'default:\n  turns:\n    - answer: ok\n';

describe('the three YAML readers, one format', { concurrency: true }, () => {
  test('murmur.yaml: every bad key, each with its path, the value found and what is allowed', async () => {
    const manifest = manifestYaml({ name: 'Refused', maxTurns: 0 })
      .replace('task_acceptance: queue', 'task_acceptance: sometimes\n  after_tusk: exit')
      .replace('allow: [bash]', 'allow: [bash, ""]');
    const dir = makeCapsule(manifest, SCRIPT);
    assert.equal(
      await refusedRun(['run', dir]),
      [
        `mur: ${path.join(dir, 'murmur.yaml')}:`,
        '  name: found "Refused"; allowed: a capsule name: lowercase letters, digits, ., - and _, starting with a letter or digit',
        '  lifecycle.task_acceptance: found "sometimes"; allowed: one of "single", "queue", "none"',
        '  lifecycle: found unknown key "after_tusk"; allowed: the keys task_acceptance, conversation, after_task, shell_grace_secs, deadline_notice_secs, delegation_deadline_secs, input_timeout_secs, max_task_reopens, keep_working, done_check',
        '  inference.max_turns: found 0; allowed: an integer from 1',
        '  capabilities.shell.allow[1]: found ""; allowed: a non-empty string',
        '',
      ].join('\n'),
    );
  });

  test('roster.yaml: every bad key, each with its path, the value found and what is allowed', async () => {
    const roster = makeFormation('name: Team\nmembers:\n  Planner: { capsule: ./planner }\nrules:\n  - from: planner\n    to: []\n    via: http\n', {
      planner: { manifest: memberManifest('planner'), script: SCRIPT },
    });
    assert.equal(
      await refusedRun(['run', '--roster', roster]),
      [
        `mur: ${roster}:`,
        '  name: found "Team"; allowed: a formation name: lowercase letters, digits, ., - and _, starting with a letter or digit',
        '  entry: found nothing; allowed: a string',
        '  members.Planner: found the key "Planner"; allowed: a member name: lowercase letters, digits, - and _, starting with a letter',
        '  rules[0].to: found []; allowed: a non-empty list, each a string',
        '  rules[0]: found unknown key "via"; allowed: the keys from, to',
        '',
      ].join('\n'),
    );
  });

  test('a script file: every bad key, each with its path, the value found and what is allowed', async () => {
    const script = [
      'rules:',
      '  - match: "(["',
      '    flags: x',
      '    turns:',
      '      - answer: a',
      '        fail: b',
      'default:',
      '  turns:',
      '    - pace_ms: -1',
      '      colour: red',
      '',
    ].join('\n');
    const dir = makeCapsule(manifestYaml({ name: 'scripted' }), script);
    const stderr = await refusedRun(['run', dir]);
    assert.equal(
      stderr,
      [
        `mur: ${path.join(dir, 'script.yaml')}:`,
        '  rules[0].match: found "(["; allowed: a regular expression JavaScript reads',
        '  rules[0].flags: found "x"; allowed: some of the flags i, m, s and u',
        '  rules[0].turns[0]: found {"answer":"a","fail":"b"}; allowed: a turn that ends with at most one of answer, ask and fail',
        '  default.turns[0].pace_ms: found -1; allowed: an integer from 0',
        '  default.turns[0]: found unknown key "colour"; allowed: the keys thinking, text, pace_ms, repeat, sleep_ms, tools, usage, answer, ask, fail',
        '',
      ].join('\n'),
    );
  });

  test('a script whose rule ends on a turn that asks: the check after the schema, in the same format', async () => {
    const dir = makeCapsule(manifestYaml({ name: 'asking' }), 'default:\n  turns:\n    - answer: a\n    - ask: which?\n');
    assert.equal(
      await refusedRun(['run', dir]),
      `mur: ${path.join(dir, 'script.yaml')}:\n  default.turns[1].ask: found "which?" (on the rule's last turn); allowed: ask on a turn that is followed by the turn that reads the reply\n`,
    );
  });
});

describe('environment settings, read once when the process starts', { concurrency: true }, () => {
  const capsule = makeCapsule(manifestYaml({ name: 'env-checked' }), SCRIPT);

  test('mur run: every bad value refused at start, exit 2, the sensitive one without its value; nothing is staged', async () => {
    const home = tempDir('home');
    const secret = 'sk-live-not-a-header';
    const result = await spawnMur(['run', capsule, '--json'], home, {
      MURMUR_HEARTBEAT_MS: 'fast',
      MURMUR_DELEGATION_TIMEOUT_SECS: 'soon',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318',
      OTEL_EXPORTER_OTLP_HEADERS: secret,
    }).exited;
    assert.equal(result.code, 2, result.stderr);
    assert.equal(result.stdout, '');
    assert.equal(
      result.stderr,
      [
        'mur: the environment:',
        '  MURMUR_HEARTBEAT_MS: found "fast"; allowed: whole milliseconds from 10',
        '  MURMUR_DELEGATION_TIMEOUT_SECS: found "soon"; allowed: whole seconds from 1',
        '  OTEL_EXPORTER_OTLP_ENDPOINT: found "collector:4318"; allowed: an http or https URL',
        '  OTEL_EXPORTER_OTLP_HEADERS: found a value that is not shown (sensitive); allowed: comma-separated key=value pairs',
        '',
      ].join('\n'),
    );
    assert.ok(!result.stderr.includes(secret));
    // Refused before staging: no records folder, no registry.
    assert.deepEqual(readdirSync(home), []);
  });

  test('a relative MURMUR_HOME is refused, not taken relative to wherever mur happens to run', async () => {
    assert.equal(
      await refusedRun(['run', capsule], { MURMUR_HOME: 'murmur-home' }),
      'mur: the environment:\n  MURMUR_HOME: found "murmur-home"; allowed: an absolute path\n',
    );
  });

  test('every command reads them at start: mur ps refuses a bad value too', async () => {
    assert.equal(
      await refusedRun(['ps'], { MURMUR_PEER_FETCH_MAX_BYTES: '-1' }),
      'mur: the environment:\n  MURMUR_PEER_FETCH_MAX_BYTES: found "-1"; allowed: whole bytes from 1 to 268435456\n',
    );
  });

  test('mur run --roster: the supervisor refuses at start, before any member', async () => {
    const roster = makeFormation('name: team\nentry: planner\nmembers:\n  planner: { capsule: ./planner }\n', {
      planner: { manifest: memberManifest('planner'), script: SCRIPT },
    });
    assert.equal(
      await refusedRun(['run', '--roster', roster], { OTEL_SDK_DISABLED: 'off' }),
      'mur: the environment:\n  OTEL_SDK_DISABLED: found "off"; allowed: true or false, in any case\n',
    );
  });

  test('an empty value is an unset one: the door starts', async () => {
    const door = await runDoor(capsule, [], tempDir('home'), { env: { MURMUR_HEARTBEAT_MS: '', OTEL_EXPORTER_OTLP_ENDPOINT: '' } });
    try {
      assert.match(door.sessionId, /^ses_[0-9a-f]{32}$/);
    } finally {
      await door.stop();
    }
  });
});
