import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CodexEventReader, codexQuota } from './codex-events.js';

test('a run: its thread, its turn, messages as text, reasoning as thinking, its usage, the last message its answer', () => {
  const reader = new CodexEventReader();
  assert.deepEqual(reader.read({ type: 'thread.started', thread_id: 'th-1' }), [{ kind: 'session', id: 'th-1' }]);
  assert.deepEqual(reader.read({ type: 'turn.started' }), [{ kind: 'turn-start' }]);
  assert.deepEqual(
    reader.read({ type: 'item.completed', item: { id: 'i0', type: 'error', message: 'Model metadata not found' } }),
    [],
    'a warning item is no failure',
  );
  assert.deepEqual(reader.read({ type: 'item.completed', item: { id: 'i1', type: 'reasoning', text: 'think' } }), [{ kind: 'thinking', text: 'think' }]);
  assert.deepEqual(reader.read({ type: 'item.completed', item: { id: 'i2', type: 'agent_message', text: 'first' } }), [{ kind: 'text', text: 'first' }]);
  assert.deepEqual(reader.read({ type: 'item.completed', item: { id: 'i3', type: 'agent_message', text: 'last' } }), [{ kind: 'text', text: 'last' }]);
  assert.deepEqual(reader.read({ type: 'turn.completed', usage: { input_tokens: 100, cached_input_tokens: 20, output_tokens: 7 } }), [
    { kind: 'turn-end', usage: { input: 100, output: 7, cached: 20 }, stop: 'end_turn' },
    { kind: 'answer', text: 'last' },
  ]);
});

test('the tools of its own: a command that ran is a call that passed whatever its exit; an MCP call is the tool server’s', () => {
  const reader = new CodexEventReader();
  assert.deepEqual(reader.read({ type: 'item.started', item: { id: 'c1', type: 'command_execution', command: 'ls /x' } }), [
    { kind: 'tool-start', id: 'c1', name: 'shell', input: { command: 'ls /x' } },
  ]);
  assert.deepEqual(
    reader.read({ type: 'item.completed', item: { id: 'c1', type: 'command_execution', aggregated_output: 'no\n', exit_code: 2, status: 'failed' } }),
    [{ kind: 'tool-end', id: 'c1', output: 'no\n', isError: false, exitCode: 2 }],
  );
  assert.deepEqual(reader.read({ type: 'item.started', item: { id: 'm1', type: 'mcp_tool_call', server: 'murmur', tool: 'session-status' } }), []);
  assert.deepEqual(reader.read({ type: 'item.completed', item: { id: 'm1', type: 'mcp_tool_call', server: 'murmur', tool: 'session-status' } }), []);
  assert.deepEqual(reader.read({ type: 'item.started', item: { id: 'f1', type: 'file_change', changes: [{ path: 'a' }] } }), [
    { kind: 'tool-start', id: 'f1', name: 'apply_patch', input: { changes: [{ path: 'a' }] } },
  ]);
});

test('its failure in its words; an error line says why when no turn ends', () => {
  const reader = new CodexEventReader();
  assert.deepEqual(reader.read({ type: 'error', message: 'stream disconnected' }), []);
  assert.equal(reader.lastWords, 'stream disconnected');
  assert.deepEqual(reader.read({ type: 'turn.failed', error: { message: 'quota exceeded' } }), [{ kind: 'failure', message: 'quota exceeded' }]);
  assert.deepEqual(reader.read({ type: 'turn.failed' }), [{ kind: 'failure', message: 'stream disconnected' }]);
});

test('the windows of its session log: primary and secondary, a limit other than codex prefixed', () => {
  assert.deepEqual(codexQuota({ limit_id: 'codex', primary: { used_percent: 42.5, window_minutes: 300, resets_at: 1_800_000_000 }, secondary: null }), [
    { name: 'primary', used: 0.425, resetsAt: '2027-01-15T08:00:00Z', windowMinutes: 300 },
  ]);
  assert.deepEqual(codexQuota({ limit_id: 'pro', secondary: { used_percent: 100 } }), [{ name: 'pro-secondary', used: 1 }]);
  assert.deepEqual(codexQuota(undefined), []);
});

test('usage is the sandbox’s word: a negative or fractional count is not reported, the rest of the turn’s is', () => {
  const reader = new CodexEventReader();
  reader.read({ type: 'turn.started' });
  assert.deepEqual(reader.read({ type: 'turn.completed', usage: { input_tokens: -500_000, output_tokens: 12, cached_input_tokens: 1.5 } })[0], {
    kind: 'turn-end',
    usage: { output: 12 },
    stop: 'end_turn',
  });
});
