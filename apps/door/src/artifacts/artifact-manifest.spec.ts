/**
 * An artifact's input schema is compiled where its murmur.yaml is read (docs/artifacts.md, "The artifact"), with the
 * options a call's check compiles it with: a schema Ajv does not compile is refused in the one problem format, by
 * readArtifactManifest and so by readArtifactFolder (mur pack, mur publish, a pull, staging), not at the first call.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { stringify } from 'yaml';
import { ArchiveRefusal } from './archive-bounds.js';
import { readArtifactFolder } from './artifact-folder.js';
import { ArtifactManifestError, parseArtifactManifest, readArtifactManifest } from './artifact-manifest.js';

const manifestText = (input_schema: Record<string, unknown>) =>
  stringify({ name: 'acme/x', version: '1.0.0', runtime: 'tool', implementation: 'native', description: 'the x tool', entry: 'run', input_schema });

const ALLOWED = 'allowed: a JSON Schema that compiles as a call’s input is checked (Ajv, strict mode)';
const UNKNOWN_KEYWORD = { type: 'object', properties: { said: { type: 'string', widget: 'textarea' } } };

describe('an input schema Ajv does not compile, where the manifest is read', () => {
  test('is refused by readArtifactManifest, naming input_schema and Ajv’s words', async () => {
    await assert.rejects(
      readArtifactManifest(manifestText(UNKNOWN_KEYWORD), "acme/x 1.0.0's murmur.yaml"),
      (error: unknown) =>
        error instanceof ArtifactManifestError &&
        error.message ===
          `acme/x 1.0.0's murmur.yaml:\n  input_schema: found a schema Ajv does not compile (strict mode: unknown keyword: "widget"); ${ALLOWED}`,
    );
    await assert.rejects(readArtifactManifest(manifestText({ type: 'object', properties: { said: { $ref: '#/$defs/said' } } }), 'm'), {
      message: `m:\n  input_schema: found a schema Ajv does not compile (can't resolve reference #/$defs/said from id #); ${ALLOWED}`,
    });
  });

  test('the format is read first: a bad key or a regular expression is refused as before, without a compile', async () => {
    await assert.rejects(
      readArtifactManifest(manifestText({ type: 'object', properties: { t: { pattern: '^(a+)+$' } } }), 'm'),
      /no pattern or patternProperties/,
    );
    assert.equal(parseArtifactManifest(manifestText(UNKNOWN_KEYWORD), 'm').name, 'acme/x', 'parseArtifactManifest reads the format alone');
  });

  test('a schema that compiles, and none (the default), read as before', async () => {
    const read = await readArtifactManifest(manifestText({ type: 'object', properties: { said: { type: 'string' } }, required: ['said'] }), 'm');
    assert.deepEqual(read.input_schema.required, ['said']);
    const bare = stringify({ name: 'acme/x', version: '1.0.0', runtime: 'skill', description: 'a skill', entry: 'SKILL.md' });
    assert.deepEqual((await readArtifactManifest(bare, 'm')).input_schema, { type: 'object', properties: {} });
  });

  describe('readArtifactFolder', () => {
    const folder = mkdtempSync(path.join(os.tmpdir(), 'murmur-manifest-'));
    after(() => rmSync(folder, { recursive: true, force: true }));

    test('refuses it as every manifest fault: an ArchiveRefusal on one line', async () => {
      writeFileSync(path.join(folder, 'murmur.yaml'), manifestText(UNKNOWN_KEYWORD));
      writeFileSync(path.join(folder, 'run'), '#!/bin/sh\n');
      chmodSync(path.join(folder, 'run'), 0o755);
      await assert.rejects(
        readArtifactFolder(folder, 'acme/x 1.0.0'),
        (error: unknown) =>
          error instanceof ArchiveRefusal &&
          error.message ===
            `acme/x 1.0.0's murmur.yaml:   input_schema: found a schema Ajv does not compile (strict mode: unknown keyword: "widget"); ${ALLOWED}`,
      );
    });
  });
});
