/** A harness run's record entries (docs/harness.md, docs/console.md "Entries"): how the record and the compare page name them. */
import type { TaskRecordEntry } from '@murmur/protocol';
import { describe, expect, it } from 'vitest';
import { entryLabel, harnessFacts } from '../src/lib/records/entry-labels';
import { compareEntries } from '../src/lib/compare/record-diff';

type EntryOf<K extends TaskRecordEntry['kind']> = Extract<TaskRecordEntry, { kind: K }>;
const SESSION = '0f1e2d3c-4b5a-4697-8877-665544332211';
const start = (over: Partial<EntryOf<'harness-start'>> = {}): EntryOf<'harness-start'> => ({
  kind: 'harness-start',
  at: '2026-12-01T10:00:00.000Z',
  offsetMs: 10,
  harness: 'claude-code',
  model: 'claude-sonnet-4-5',
  sessionMode: 'new',
  harnessSessionId: SESSION,
  ...over,
});
const end = (over: Partial<EntryOf<'harness-end'>> = {}): EntryOf<'harness-end'> => ({
  kind: 'harness-end',
  at: '2026-12-01T10:00:01.000Z',
  offsetMs: 1000,
  harness: 'claude-code',
  harnessSessionId: SESSION,
  outcome: 'answered',
  exitCode: 0,
  turns: 2,
  failure: null,
  ...over,
});
const forgotten: EntryOf<'harness-session-forgotten'> = {
  kind: 'harness-session-forgotten',
  at: '2026-12-01T10:00:00.000Z',
  offsetMs: 0,
  harnessSessionId: SESSION,
  requestedBy: 'cli',
};

describe('a harness run in a record', () => {
  it('names its start with the session mode, its end with the outcome, a forget with who asked', () => {
    expect(entryLabel(start())).toBe('Harness claude-code started (new session)');
    expect(entryLabel(start({ harness: 'codex', sessionMode: 'resume' }))).toBe('Harness codex started (resumed session)');
    expect(entryLabel(end())).toBe('Harness claude-code answered');
    expect(entryLabel(end({ outcome: 'stopped' }))).toBe('Harness claude-code stopped');
    expect(entryLabel(forgotten)).toBe('Harness session forgotten (mur run --forget-session)');
    expect(entryLabel({ ...forgotten, requestedBy: 'a2a' })).toBe('Harness session forgotten (forgetSession)');
  });

  it('shows the model, the exit code, the turns and the harness session beside the label', () => {
    expect(harnessFacts(start())).toBe(`model claude-sonnet-4-5 · session ${SESSION}`);
    expect(harnessFacts(start({ harness: 'codex', harnessSessionId: null }))).toBe('model claude-sonnet-4-5 · session not yet named');
    expect(harnessFacts(end())).toBe(`exit 0 · 2 turns · session ${SESSION}`);
    expect(harnessFacts(end({ exitCode: null, turns: 1, harnessSessionId: null }))).toBe('no exit code · 1 turn · session not yet named');
    expect(harnessFacts(forgotten)).toBe(`dropped session ${SESSION}`);
  });

  it('compares two runs’ harness entries field by field', () => {
    expect(compareEntries(start(), start({ model: 'claude-opus-4-1', sessionMode: 'resume' })).changed).toEqual(['model', 'session mode']);
    const failed = compareEntries(end(), end({ outcome: 'failed', exitCode: 1, turns: 0, failure: 'harness failed: claude-code exited 1' }));
    expect(failed.changed).toEqual(['outcome', 'exit code', 'turns', 'failure']);
    expect(compareEntries(forgotten, { ...forgotten, requestedBy: 'a2a' }).changed).toEqual(['requested by']);
  });
});
