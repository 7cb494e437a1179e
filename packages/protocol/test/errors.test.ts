import assert from 'node:assert/strict';
import test from 'node:test';
import {
  ERROR_INFO_TYPE,
  ERRORS,
  type ErrorName,
  errorNameForCode,
  failure,
  internalError,
  invalidParams,
  isRetryableCode,
  pushNotSupported,
  rpcError,
  taskNotCancelable,
  taskNotFound,
  unsupportedForTask,
  unsupportedOperation,
  versionNotSupported,
} from '../src/index.js';
import { contentTypeNotSupported } from '../src/errors.js';
import { A2A_ERROR_DOMAIN, MURMUR_ERROR_DOMAIN } from '../src/uris.js';

// Seed "Errors", "Push notifications" and "Completion errors".

const INFO = 'type.googleapis.com/google.rpc.ErrorInfo';

test('ErrorInfo constants', () => {
  assert.equal(ERROR_INFO_TYPE, INFO);
  assert.equal(A2A_ERROR_DOMAIN, 'a2a-protocol.org');
  assert.equal(MURMUR_ERROR_DOMAIN, 'murmur.nexus');
});

test('the standard JSON-RPC errors: codes and messages, and no data', () => {
  const standard: [ErrorName, number, string][] = [
    ['ParseError', -32700, 'Invalid JSON payload'],
    ['InvalidRequest', -32600, 'Request payload validation error'],
    ['MethodNotFound', -32601, 'Method not found'],
  ];
  for (const [name, code, message] of standard) {
    assert.equal(ERRORS[name].code, code, name);
    assert.equal(ERRORS[name].reason, null, name);
    assert.deepEqual(rpcError(name), { code, message }, name);
    assert.equal('data' in rpcError(name), false, `${name} carries no data`);
  }
  assert.equal(ERRORS.InvalidParams.code, -32602);
  assert.equal(ERRORS.InternalError.code, -32603);
  assert.equal('data' in rpcError('InvalidParams', 'x'), false);
  assert.equal('data' in rpcError('InternalError'), false);
});

test('every A2A error: code, reason and domain a2a-protocol.org, as the seed table lists them', () => {
  const table: [ErrorName, number, string][] = [
    ['TaskNotFound', -32001, 'TASK_NOT_FOUND'],
    ['TaskNotCancelable', -32002, 'TASK_NOT_CANCELABLE'],
    ['PushNotificationNotSupported', -32003, 'PUSH_NOTIFICATION_NOT_SUPPORTED'],
    ['UnsupportedOperation', -32004, 'UNSUPPORTED_OPERATION'],
    ['ContentTypeNotSupported', -32005, 'CONTENT_TYPE_NOT_SUPPORTED'],
    ['InvalidAgentResponse', -32006, 'INVALID_AGENT_RESPONSE'],
    ['ExtendedAgentCardNotConfigured', -32007, 'EXTENDED_AGENT_CARD_NOT_CONFIGURED'],
    ['ExtensionSupportRequired', -32008, 'EXTENSION_SUPPORT_REQUIRED'],
    ['VersionNotSupported', -32009, 'VERSION_NOT_SUPPORTED'],
  ];
  for (const [name, code, reason] of table) {
    assert.equal(ERRORS[name].code, code, name);
    const error = rpcError(name);
    assert.equal(error.code, code, name);
    // Every A2A error carries error.data, an array holding one ErrorInfo; metadata {} when the error has none.
    assert.deepEqual(error.data, [{ '@type': INFO, reason, domain: 'a2a-protocol.org', metadata: {} }], name);
  }
});

test('the murmur completion errors: -31001 and -31002 in the domain murmur.nexus, outside the reserved range', () => {
  for (const [name, code, reason] of [
    ['CompletionMisaddressed', -31001, 'COMPLETION_MISADDRESSED'],
    ['CompletionNotAwaited', -31002, 'COMPLETION_NOT_AWAITED'],
  ] as [ErrorName, number, string][]) {
    assert.equal(ERRORS[name].code, code);
    assert.ok(code > -32000 || code < -32768, 'outside -32768 to -32000');
    assert.deepEqual(rpcError(name).data, [{ '@type': INFO, reason, domain: 'murmur.nexus', metadata: {} }]);
  }
});

test('ErrorInfo members are written in the order @type, reason, domain, metadata', () => {
  const info = taskNotFound('tsk_x').data?.[0];
  assert.deepEqual(Object.keys(info ?? {}), ['@type', 'reason', 'domain', 'metadata']);
});

test('-31002 COMPLETION_NOT_AWAITED: the seed example', () => {
  const error = rpcError('CompletionNotAwaited', 'no task in this session is waiting for delegation dlg_…', { delegationId: 'dlg_…' });
  assert.deepEqual(failure(1, error), {
    jsonrpc: '2.0',
    id: 1,
    error: {
      code: -31002,
      message: 'no task in this session is waiting for delegation dlg_…',
      data: [{ '@type': INFO, reason: 'COMPLETION_NOT_AWAITED', domain: 'murmur.nexus', metadata: { delegationId: 'dlg_…' } }],
    },
  });
});

test('-31001 COMPLETION_MISADDRESSED carries addressedSession', () => {
  const error = rpcError('CompletionMisaddressed', undefined, { addressedSession: '' });
  assert.equal(error.code, -31001);
  assert.deepEqual(error.data?.[0]?.metadata, { addressedSession: '' });
});

test('-32001 Task not found names the taskId', () => {
  assert.deepEqual(taskNotFound('tsk_abc'), {
    code: -32001,
    message: 'Task not found',
    data: [{ '@type': INFO, reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org', metadata: { taskId: 'tsk_abc' } }],
  });
});

test('-32002 TaskNotCancelable: the seed example, to the letter', () => {
  assert.deepEqual(failure(3, taskNotCancelable('tsk_…', 'TASK_STATE_COMPLETED')), {
    jsonrpc: '2.0',
    id: 3,
    error: {
      code: -32002,
      message: 'Task cannot be canceled: it is already TASK_STATE_COMPLETED',
      data: [{ '@type': INFO, reason: 'TASK_NOT_CANCELABLE', domain: 'a2a-protocol.org', metadata: { taskId: 'tsk_…', state: 'TASK_STATE_COMPLETED' } }],
    },
  });
  for (const state of ['TASK_STATE_FAILED', 'TASK_STATE_REJECTED', 'TASK_STATE_CANCELED'] as const) {
    const error = taskNotCancelable('tsk_1', state);
    assert.equal(error.message, `Task cannot be canceled: it is already ${state}`);
    assert.deepEqual(error.data?.[0]?.metadata, { taskId: 'tsk_1', state });
  }
});

test('-32003 PushNotificationNotSupported: the seed example, message and metadata {}', () => {
  assert.deepEqual(failure(1, pushNotSupported()), {
    jsonrpc: '2.0',
    id: 1,
    error: {
      code: -32003,
      message: 'push notifications are not supported by this agent',
      data: [{ '@type': INFO, reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED', domain: 'a2a-protocol.org', metadata: {} }],
    },
  });
});

test('-32004 UnsupportedOperation: {} metadata, or taskId and state when it names a task', () => {
  assert.deepEqual(unsupportedOperation('GetExtendedAgentCard is not served by a public door'), {
    code: -32004,
    message: 'GetExtendedAgentCard is not served by a public door',
    data: [{ '@type': INFO, reason: 'UNSUPPORTED_OPERATION', domain: 'a2a-protocol.org', metadata: {} }],
  });
  assert.deepEqual(unsupportedForTask('task tsk_1 is TASK_STATE_WORKING', 'tsk_1', 'TASK_STATE_WORKING'), {
    code: -32004,
    message: 'task tsk_1 is TASK_STATE_WORKING',
    data: [{ '@type': INFO, reason: 'UNSUPPORTED_OPERATION', domain: 'a2a-protocol.org', metadata: { taskId: 'tsk_1', state: 'TASK_STATE_WORKING' } }],
  });
});

test('-32005 ContentTypeNotSupported: the seed example, partIndex as a string', () => {
  const message = 'message.parts[1] is a url part; this agent reads text parts, data parts and image raw parts only';
  assert.deepEqual(failure(4, contentTypeNotSupported(message, 1, 'application/pdf')), {
    jsonrpc: '2.0',
    id: 4,
    error: {
      code: -32005,
      message,
      data: [{ '@type': INFO, reason: 'CONTENT_TYPE_NOT_SUPPORTED', domain: 'a2a-protocol.org', metadata: { partIndex: '1', mediaType: 'application/pdf' } }],
    },
  });
});

test('-32005 omits mediaType when the part declared none', () => {
  assert.deepEqual(contentTypeNotSupported('m', 0).data?.[0]?.metadata, { partIndex: '0' });
  assert.deepEqual(contentTypeNotSupported('m', 12, '').data?.[0]?.metadata, { partIndex: '12', mediaType: '' });
});

test('-32009 VersionNotSupported names requestedVersion and supportedVersions 1.0', () => {
  assert.deepEqual(failure(1, versionNotSupported('')), {
    jsonrpc: '2.0',
    id: 1,
    error: {
      code: -32009,
      message: "A2A version '' is not supported; this agent speaks 1.0",
      data: [{ '@type': INFO, reason: 'VERSION_NOT_SUPPORTED', domain: 'a2a-protocol.org', metadata: { requestedVersion: '', supportedVersions: '1.0' } }],
    },
  });
});

test('-32602 invalidParams keeps its message and carries no data', () => {
  assert.deepEqual(invalidParams('GetTask requires an id'), { code: -32602, message: 'GetTask requires an id' });
});

test('-32603 internalError names the failure and carries no data', () => {
  assert.deepEqual(internalError('the session is gone'), { code: -32603, message: 'Internal error: the session is gone' });
});

test('every ErrorInfo metadata value is a string', () => {
  const errors = [
    taskNotFound('tsk_1'),
    taskNotCancelable('tsk_1', 'TASK_STATE_CANCELED'),
    pushNotSupported(),
    unsupportedForTask('m', 'tsk_1', 'TASK_STATE_COMPLETED'),
    contentTypeNotSupported('m', 3, 'application/pdf'),
    versionNotSupported('0.3'),
  ];
  for (const error of errors) {
    assert.equal(error.data?.length, 1);
    for (const value of Object.values(error.data?.[0]?.metadata ?? {})) assert.equal(typeof value, 'string');
  }
});

test('rpcError does not share metadata objects between calls', () => {
  const a = rpcError('TaskNotFound');
  const b = rpcError('TaskNotFound');
  assert.notEqual(a.data?.[0]?.metadata, b.data?.[0]?.metadata);
});

test('errorNameForCode maps every code in the table back to its name', () => {
  for (const name of Object.keys(ERRORS) as ErrorName[]) assert.equal(errorNameForCode(ERRORS[name].code), name);
  assert.equal(errorNameForCode(-32000), undefined);
  assert.equal(errorNameForCode(0), undefined);
  assert.equal(new Set(Object.values(ERRORS).map((row) => row.code)).size, Object.keys(ERRORS).length, 'codes are distinct');
});

test('isRetryableCode: only -32603 may succeed when sent again', () => {
  for (const name of Object.keys(ERRORS) as ErrorName[]) {
    assert.equal(isRetryableCode(ERRORS[name].code), name === 'InternalError', name);
  }
  assert.equal(isRetryableCode(-1), false);
});
