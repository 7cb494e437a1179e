import assert from 'node:assert/strict';
import test from 'node:test';
import {
  A2A_EXTENSIONS_HEADER,
  AGENT_CARD_PATH,
  COMPLETION_SESSION_HEADER,
  DELEGATION_ID_HEADER,
  ID_PREFIX,
  isId,
  isSettledState,
  isTerminalState,
  METHOD,
  MURMUR_STATE_WORD,
  PUSH_CONFIG_METHODS,
  SCOPES,
  scopeOf,
  statusMessageId,
  TASK_ORIGIN_HEADER,
  TASK_STATES,
  TASK_TRUST_HEADER,
  TERMINAL_STATES,
} from '../src/index.js';
import { RETIRED_METHOD_NAMES } from '../src/methods.js';
import { TASK_STATE_FILTER_NAMES } from '../src/task-states.js';

// Method names, scopes, task states and their murmur words, identifiers and header names (seed 000).

test("every method of A2AService in its order, then murmur's own", () => {
  assert.deepEqual(Object.values(METHOD), [
    'SendMessage',
    'SendStreamingMessage',
    'GetTask',
    'ListTasks',
    'CancelTask',
    'SubscribeToTask',
    'CreateTaskPushNotificationConfig',
    'GetTaskPushNotificationConfig',
    'ListTaskPushNotificationConfigs',
    'GetExtendedAgentCard',
    'DeleteTaskPushNotificationConfig',
    'murmur.WatchSession',
    'murmur.StopSession',
  ]);
});

test('the four push config methods', () => {
  assert.deepEqual(
    [...PUSH_CONFIG_METHODS],
    ['CreateTaskPushNotificationConfig', 'GetTaskPushNotificationConfig', 'ListTaskPushNotificationConfigs', 'DeleteTaskPushNotificationConfig'],
  );
});

test('the scopes: every door method but GetExtendedAgentCard, then resources/files and resources/records', () => {
  assert.deepEqual(
    [...SCOPES],
    [
      'SendMessage',
      'SendStreamingMessage',
      'murmur.WatchSession',
      'GetTask',
      'ListTasks',
      'CancelTask',
      'SubscribeToTask',
      'murmur.StopSession',
      'resources/files',
      'resources/records',
    ],
  );
  assert.equal(SCOPES.includes('GetExtendedAgentCard'), false, 'GetExtendedAgentCard needs no scope');
  for (const push of PUSH_CONFIG_METHODS) assert.equal(SCOPES.includes(push), false, `${push} needs no scope`);
  // Each method's scope is its own name; GetExtendedAgentCard needs none (every valid token reaches it).
  for (const method of Object.values(METHOD)) assert.equal(scopeOf(method), method === METHOD.GetExtendedAgentCard ? null : method, method);
});

test('the retired names the door answers -32601, serving no alias', () => {
  for (const name of ['message/send', 'message/stream', 'tasks/get', 'tasks/cancel', 'agent/getAuthenticatedExtendedCard', 'stream/watch', 'session/stop']) {
    assert.ok(RETIRED_METHOD_NAMES.includes(name), name);
  }
  const current: readonly string[] = Object.values(METHOD);
  for (const name of RETIRED_METHOD_NAMES) assert.equal(current.includes(name), false, name);
});

test("task states on the wire and murmur's word for each", () => {
  assert.deepEqual(MURMUR_STATE_WORD, {
    TASK_STATE_SUBMITTED: 'submitted',
    TASK_STATE_WORKING: 'working',
    TASK_STATE_INPUT_REQUIRED: 'input-required',
    TASK_STATE_COMPLETED: 'completed',
    TASK_STATE_FAILED: 'failed',
    TASK_STATE_REJECTED: 'rejected',
    TASK_STATE_CANCELED: 'canceled',
    TASK_STATE_AUTH_REQUIRED: 'auth-required',
  });
  assert.deepEqual(Object.keys(MURMUR_STATE_WORD).sort(), [...TASK_STATES].sort());
});

test('the ListTasks status filter names: TASK_STATE_UNSPECIFIED and every state', () => {
  assert.deepEqual([...TASK_STATE_FILTER_NAMES], ['TASK_STATE_UNSPECIFIED', ...TASK_STATES]);
  assert.ok(TASK_STATE_FILTER_NAMES.includes('TASK_STATE_AUTH_REQUIRED'));
});

test('terminal states: completed, failed, rejected, canceled', () => {
  assert.deepEqual([...TERMINAL_STATES].sort(), ['TASK_STATE_CANCELED', 'TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_REJECTED']);
  for (const state of TASK_STATES) assert.equal(isTerminalState(state), TERMINAL_STATES.has(state), state);
});

test('a task settles when it ends, or pauses in TASK_STATE_INPUT_REQUIRED', () => {
  const settled = TASK_STATES.filter(isSettledState);
  assert.deepEqual([...settled].sort(), [
    'TASK_STATE_CANCELED',
    'TASK_STATE_COMPLETED',
    'TASK_STATE_FAILED',
    'TASK_STATE_INPUT_REQUIRED',
    'TASK_STATE_REJECTED',
  ]);
});

test('identifiers: a prefix then 32 lowercase hex digits', () => {
  assert.deepEqual(ID_PREFIX, {
    session: 'ses_',
    task: 'tsk_',
    context: 'ctx_',
    message: 'msg_',
    work: 'wrk_',
    delegation: 'dlg_',
    memberCall: 'mcl_',
    handle: 'hdl_',
    controlToken: 'ctk_',
  });
  assert.equal(isId('session', 'ses_019f01a940ce7761854e768ecbe3d399'), true);
  assert.equal(isId('task', 'tsk_0199c4e2f1b7712a9d3e4f5061728394'), true);
  assert.equal(isId('context', 'ctx_0193f2a1c4d87e01b2c3d4e5f6a7b8c9'), true);
  assert.equal(isId('work', 'wrk_0199a3f1c2d47e8ab5c6d7e8f9a0b1c2'), true);
  assert.equal(isId('task', 'ses_0199c4e2f1b7712a9d3e4f5061728394'), false, 'wrong prefix');
  assert.equal(isId('task', 'tsk_0199C4E2F1B7712A9D3E4F5061728394'), false, 'uppercase');
  assert.equal(isId('task', 'tsk_0199c4e2'), false, 'short');
  assert.equal(isId('task', 'tsk_0199c4e2f1b7712a9d3e4f50617283940'), false, 'long');
  assert.equal(isId('work', 'wrk_9f2a1c'), false);
});

test("a task's status message id is msg_<task id>_status", () => {
  assert.equal(statusMessageId('tsk_0199c4e2f1b7712a9d3e4f5061728394'), 'msg_tsk_0199c4e2f1b7712a9d3e4f5061728394_status');
});

test('paths and header names', () => {
  assert.equal(AGENT_CARD_PATH, '/.well-known/agent-card.json');
  assert.equal(A2A_EXTENSIONS_HEADER, 'A2A-Extensions');
  assert.equal(TASK_ORIGIN_HEADER, 'x-murmur-task-origin');
  assert.equal(TASK_TRUST_HEADER, 'x-murmur-task-trust');
  assert.equal(DELEGATION_ID_HEADER, 'x-murmur-delegation-id');
  assert.equal(COMPLETION_SESSION_HEADER, 'x-murmur-completion-session');
});
