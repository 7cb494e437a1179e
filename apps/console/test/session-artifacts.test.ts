import type { ConsoleArtifactsResponse, TaskRecordEntry } from '@murmur/protocol';
import { describe, expect, it } from 'vitest';
import { entryLabel } from '../src/lib/records/entry-labels';
import { SessionArtifactsView } from '../src/lib/records/session-artifacts.svelte';
import { useConsoleFetch } from './support/console-fetch';

describe('SessionArtifactsView', () => {
  it('reads a session’s artifacts from the record API, and nothing without a record session', async () => {
    const body: ConsoleArtifactsResponse = {
      sessionId: 'ses_1',
      artifacts: [
        {
          artifact: 'demo/greet',
          version: '1.0.0',
          digest: `sha256:${'a'.repeat(64)}`,
          runtime: 'tool',
          implementation: 'wasm',
          toolName: 'greet',
          fetchedFrom: 'project store',
          origin: 'declared',
          taskId: null,
          at: 'x',
          removedAt: null,
        },
        {
          artifact: 'demo/notes',
          version: '2.0.0',
          digest: `sha256:${'b'.repeat(64)}`,
          runtime: 'skill',
          implementation: null,
          toolName: 'notes',
          fetchedFrom: 'global store',
          origin: 'pulled',
          taskId: 'tsk_1',
          at: 'y',
          removedAt: 'z',
        },
      ],
    };
    const asked: string[] = [];
    useConsoleFetch(async (url: string) => {
      asked.push(url);
      return new Response(JSON.stringify(body));
    });
    const view = new SessionArtifactsView();
    await view.load('ses_1');
    expect(asked).toEqual(['/api/records/sessions/ses_1/artifacts']);
    expect(view.artifacts.map((a) => [a.artifact, a.origin, a.removedAt])).toEqual([
      ['demo/greet', 'declared', null],
      ['demo/notes', 'pulled', 'z'],
    ]);
    await view.load(null);
    expect(view.artifacts).toEqual([]);
  });
});

describe('a skill’s call in a record', () => {
  it('is named as a skill call with its artifact; a tool call keeps its exit code', () => {
    const base = { kind: 'tool-call', at: 'x', offsetMs: 0, toolCallId: 'c', input: null, output: null, status: 'passed', durationMs: 1 } as const;
    expect(entryLabel({ ...base, tool: 'notes', exitCode: null, skill: 'demo/notes' } as TaskRecordEntry)).toBe('Skill call notes (demo/notes)');
    expect(entryLabel({ ...base, tool: 'bash', exitCode: 0 } as TaskRecordEntry)).toBe('Tool call bash (exit 0)');
  });
});
