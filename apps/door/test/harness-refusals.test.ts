/**
 * What mur run refuses about a harness capsule before it serves (docs/harness.md): a harness that is not installed
 * (the refusal names the exact install command) or a `binary` that is not there, and --context / --forget-session
 * used where they mean nothing. Every one exits 2, announces nothing and registers no session. Needs no real harness.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { makeCapsule, manifestYaml, tempDir } from './support/door-process.js';
import { harnessManifest } from './support/harness-capsule.js';
import { refusedRun } from './support/refused-run.js';

const claude = (extra: Record<string, string> = {}) =>
  makeCapsule(harnessManifest({ harness: { name: 'claude-code', model: 'm', base_url: 'http://127.0.0.1:9', ...extra } }));

describe('a harness capsule that cannot start', { concurrency: true }, () => {
  test('its harness is not installed: the refusal names the npm command that installs the pinned one', async () => {
    const dir = claude();
    const harnesses = tempDir('harnesses');
    const folder = path.join(harnesses, 'claude-code-2.1.332');
    assert.equal(
      await refusedRun(['run', dir], { MURMUR_HARNESS_DIR: harnesses }),
      `mur: ${path.join(dir, 'murmur.yaml')}:\n` +
        `  inference.harness.name: found "claude-code" (not installed: no ${folder}/node_modules/@anthropic-ai/claude-code-linux-${process.arch}/claude); ` +
        `allowed: an installed harness: npm install --prefix ${folder} --no-save --ignore-scripts @anthropic-ai/claude-code-linux-${process.arch}@2.1.332\n`,
    );
  });

  test('its binary is not there', async () => {
    const dir = claude({ binary: './nope' });
    assert.equal(
      await refusedRun(['run', dir]),
      `mur: ${path.join(dir, 'murmur.yaml')}:\n  inference.harness.binary: found "./nope" (no file at ${path.join(dir, 'nope')}); allowed: an executable file\n`,
    );
  });
});

describe('mur run --context and --forget-session where they mean nothing', { concurrency: true }, () => {
  const SCRIPT = 'default:\n  turns:\n    - answer: ok\n';

  test('--forget-session without --context', async () => {
    assert.equal(
      await refusedRun(['run', claude(), '--forget-session', '--task', 'x']),
      'mur: --forget-session forgets the harness session of the context --context names: give --context <id>\n',
    );
  });

  test('--context with an empty id', async () => {
    assert.equal(await refusedRun(['run', claude(), '--context', '', '--task', 'x']), "mur: --context takes a context id, not ''\n");
  });

  test('--context on --resume, which runs no launch task', async () => {
    assert.equal(
      await refusedRun(['run', claude(), '--context', 'ctx-1', '--resume', 'ses_0193f2a1c4d87e01b2c3d4e5f6a7b8c9']),
      'mur: --context names the context of the launch’s task, and a resumed session (--resume) runs no launch task\n',
    );
  });

  test('--context with no launch task', async () => {
    assert.equal(
      await refusedRun(['run', claude(), '--context', 'ctx-1']),
      'mur: --context names the context of the launch’s task, and there is none: give --task, or a task.md or input.txt in the capsule folder\n',
    );
  });

  test('--forget-session on a capsule not on transport: process: seed 000’s sentence', async () => {
    const dir = makeCapsule(manifestYaml(), SCRIPT);
    assert.equal(
      await refusedRun(['run', dir, '--context', 'ctx-1', '--forget-session', '--task', 'x']),
      'mur: forgetSession asks this capsule to forget the harness session this context names, and only a capsule on inference.transport: process has one\n',
    );
  });
});
