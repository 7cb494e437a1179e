/**
 * The door's reads of a harness's store, as an attacker's commands leave it (docs/harness.md, "The harness's store"):
 * links to what lies outside, FIFOs, a crowded folder. Each refusal has a twin that is read, so a reader that read
 * nothing would fail here too.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { claudeCode } from './claude-code.js';
import { codexAdapter } from './codex.js';
import { folderEntries, inStoreFolder, makeStoreFolder, STORE_FOLDER_ENTRIES } from './harness-store.js';

const ID = '0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000';
const WINDOWS = `${JSON.stringify({ payload: { type: 'token_count', rate_limits: { primary: { used_percent: 40, window_minutes: 300 } } } })}\n`;

const folder = (prefix: string) => mkdtempSync(path.join(os.tmpdir(), `murmur-store-${prefix}-`));

/** A Codex home holding the session's log at sessions/2026/12/07, or with `at` a link there instead. */
function codexHome(at?: (day: string, log: string) => void): string {
  const home = folder('codex');
  const day = path.join(home, '.codex/sessions/2026/12/07');
  mkdirSync(day, { recursive: true });
  const log = path.join(day, `rollout-2026-12-07T10-00-00-${ID}.jsonl`);
  if (at) at(day, log);
  else writeFileSync(log, WINDOWS);
  return home;
}

test('codex: the session log is found and its windows read', () => {
  const home = codexHome();
  const codex = codexAdapter();
  assert.equal(codex.sessionStored(home, ID), true);
  assert.deepEqual(codex.quotaSince!(home, ID), [{ name: 'primary', used: 0.4, windowMinutes: 300 }]);
});

test('codex: a log that is a link to a file outside the store is neither found nor read', () => {
  const outside = path.join(folder('outside'), 'secret.jsonl');
  writeFileSync(outside, WINDOWS);
  const home = codexHome((_, log) => symlinkSync(outside, log));
  const codex = codexAdapter();
  assert.equal(codex.sessionStored(home, ID), false);
  assert.deepEqual(codex.quotaSince!(home, ID), []);
});

test('codex: a folder on the way that is a link (to a tree outside holding the log) is not followed', () => {
  const elsewhere = codexHome();
  const home = folder('codex-linked');
  symlinkSync(path.join(elsewhere, '.codex'), path.join(home, '.codex'));
  assert.equal(codexAdapter().sessionStored(home, ID), false);
  const dayLinked = folder('codex-day');
  mkdirSync(path.join(dayLinked, '.codex/sessions/2026/12'), { recursive: true });
  symlinkSync(path.join(elsewhere, '.codex/sessions/2026/12/07'), path.join(dayLinked, '.codex/sessions/2026/12/07'));
  assert.equal(codexAdapter().sessionStored(dayLinked, ID), false);
});

test('codex: a log that is a FIFO is refused without waiting for a writer', () => {
  const home = codexHome((_, log) => execFileSync('mkfifo', [log]));
  const codex = codexAdapter();
  assert.equal(codex.sessionStored(home, ID), false);
  assert.deepEqual(codex.quotaSince!(home, ID), []);
});

test(`a folder of the store is read up to ${STORE_FOLDER_ENTRIES} entries`, () => {
  const home = folder('crowded');
  const crowded = path.join(home, 'many');
  mkdirSync(crowded);
  for (let i = 0; i < STORE_FOLDER_ENTRIES + 50; i++) writeFileSync(path.join(crowded, String(i)), '');
  assert.equal(
    inStoreFolder(home, ['many'], (fd) => folderEntries(fd).length),
    STORE_FOLDER_ENTRIES,
  );
  assert.equal(
    inStoreFolder(home, ['../many'], () => 'read'),
    null,
    'a segment is one plain name',
  );
});

test('claude-code: a session is stored when a project folder holds <id>.jsonl as a file, not through a link', () => {
  const home = folder('claude');
  const project = path.join(home, '.claude/projects/-work');
  mkdirSync(project, { recursive: true });
  writeFileSync(path.join(project, `${ID}.jsonl`), '{}\n');
  assert.equal(claudeCode.sessionStored(home, ID), true);

  const linkedFolder = folder('claude-folder');
  mkdirSync(path.join(linkedFolder, '.claude/projects'), { recursive: true });
  symlinkSync(project, path.join(linkedFolder, '.claude/projects/-work'));
  assert.equal(claudeCode.sessionStored(linkedFolder, ID), false);

  const linkedFile = folder('claude-file');
  mkdirSync(path.join(linkedFile, '.claude/projects/-work'), { recursive: true });
  symlinkSync(path.join(project, `${ID}.jsonl`), path.join(linkedFile, `.claude/projects/-work/${ID}.jsonl`));
  assert.equal(claudeCode.sessionStored(linkedFile, ID), false);
});

test("the harness's folder the door makes: a link left at its name is removed, never followed, and the folder made 0700", () => {
  const outside = folder('outside-dir');
  chmodSync(outside, 0o755);
  const home = folder('home-link');
  symlinkSync(outside, path.join(home, '.codex'));
  makeStoreFolder(home, '.codex');
  assert.equal(statSync(outside).mode & 0o777, 0o755, 'the folder the link named keeps its mode');
  const made = lstatSync(path.join(home, '.codex'));
  assert.ok(made.isDirectory() && !made.isSymbolicLink());
  assert.equal(made.mode & 0o777, 0o700);

  const fileHome = folder('home-file');
  writeFileSync(path.join(fileHome, '.codex'), 'not a folder');
  makeStoreFolder(fileHome, '.codex');
  assert.ok(lstatSync(path.join(fileHome, '.codex')).isDirectory());

  const kept = folder('home-kept');
  mkdirSync(path.join(kept, '.codex/sessions'), { recursive: true, mode: 0o755 });
  chmodSync(path.join(kept, '.codex'), 0o755);
  makeStoreFolder(kept, '.codex');
  assert.equal(statSync(path.join(kept, '.codex')).mode & 0o777, 0o700, 'an existing folder is tightened');
  assert.ok(statSync(path.join(kept, '.codex/sessions')).isDirectory(), 'and keeps what it holds');
});
