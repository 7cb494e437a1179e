import assert from 'node:assert/strict';
import test from 'node:test';
import { encodePageToken, type JsonObject, type ListTasksQuery, readListTasksParams, TASK_STATES } from '../src/index.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../src/list-tasks-reader.js';

// Seed "ListTasks": params read in the order contextId, status, pageSize, pageToken, statusTimestampAfter,
// includeArtifacts; historyLength ignored, other members ignored; the first parameter refused answers, naming it.

const TASK = 'tsk_0199c4e2f1b7712a9d3e4f5061728394';
const TOKEN = encodePageToken({ change: 12, taskId: TASK, seal: 'abcdefghijklmnopqrstuv' });
const TIMESTAMP_MESSAGE = 'statusTimestampAfter must be an RFC 3339 timestamp, such as 2026-10-13T09:00:00Z';

function query(params: Record<string, unknown>): ListTasksQuery {
  const verdict = readListTasksParams(params as JsonObject);
  if (!verdict.ok) assert.fail(`expected the params to be read, got ${JSON.stringify(verdict.error)}`);
  return verdict.query;
}

function refusal(params: Record<string, unknown>): string {
  const verdict = readListTasksParams(params as JsonObject);
  if (verdict.ok) assert.fail(`expected ${JSON.stringify(params)} to be refused`);
  assert.equal(verdict.error.code, -32602);
  assert.equal('data' in verdict.error, false, '-32602 carries no data');
  return verdict.error.message;
}

test('the defaults: every context, every state, 50 a page, the first page, every task, no artifacts', () => {
  assert.equal(DEFAULT_PAGE_SIZE, 50);
  assert.equal(MAX_PAGE_SIZE, 100);
  assert.deepEqual(query({}), {
    contextId: null,
    status: null,
    pageSize: 50,
    after: null,
    statusTimestampAfterMs: null,
    includeArtifacts: false,
  });
});

test('every parameter read', () => {
  assert.deepEqual(
    query({
      contextId: 'ctx_1',
      status: 'TASK_STATE_WORKING',
      pageSize: 2,
      pageToken: TOKEN,
      statusTimestampAfter: '2026-10-13T09:00:00.123Z',
      includeArtifacts: true,
      historyLength: 3,
    }),
    {
      contextId: 'ctx_1',
      status: 'TASK_STATE_WORKING',
      pageSize: 2,
      after: { change: 12, taskId: TASK, seal: 'abcdefghijklmnopqrstuv' },
      statusTimestampAfterMs: Date.UTC(2026, 9, 13, 9, 0, 0, 123),
      includeArtifacts: true,
    },
  );
});

// contextId

test('contextId "" or absent: every context', () => {
  assert.equal(query({ contextId: '' }).contextId, null);
  assert.equal(query({}).contextId, null);
  assert.equal(query({ contextId: 'ctx_abc' }).contextId, 'ctx_abc');
});

test('contextId that is not a string is refused, naming it', () => {
  for (const contextId of [1, null, true, ['ctx_1'], {}]) assert.equal(refusal({ contextId }), 'Invalid params: contextId must be a string');
});

// status

test('status: each TASK_STATE_* name filters on that state', () => {
  for (const state of TASK_STATES) assert.equal(query({ status: state }).status, state);
});

test('status: TASK_STATE_AUTH_REQUIRED is accepted (it matches no task)', () => {
  assert.equal(query({ status: 'TASK_STATE_AUTH_REQUIRED' }).status, 'TASK_STATE_AUTH_REQUIRED');
});

test('status: TASK_STATE_UNSPECIFIED or absent is every state', () => {
  assert.equal(query({ status: 'TASK_STATE_UNSPECIFIED' }).status, null);
  assert.equal(query({}).status, null);
});

test('status: anything else is refused, naming it', () => {
  const cases: [unknown, string][] = [
    ['working', '"working"'],
    ['task_state_working', '"task_state_working"'],
    ['TASK_STATE_UNKNOWN', '"TASK_STATE_UNKNOWN"'],
    ['', '""'],
    [1, '1'],
    [null, 'null'],
    [['TASK_STATE_WORKING'], '["TASK_STATE_WORKING"]'],
  ];
  for (const [status, shown] of cases) {
    assert.equal(refusal({ status }), `Invalid params: status must be a TASK_STATE_* name, such as TASK_STATE_WORKING, not ${shown}`);
  }
});

// pageSize

test('pageSize: absent 50; an integer from 1 as given; above 100, 100', () => {
  assert.equal(query({}).pageSize, 50);
  assert.equal(query({ pageSize: 1 }).pageSize, 1);
  assert.equal(query({ pageSize: 50 }).pageSize, 50);
  assert.equal(query({ pageSize: 99 }).pageSize, 99);
  assert.equal(query({ pageSize: 100 }).pageSize, 100);
  assert.equal(query({ pageSize: 101 }).pageSize, 100);
  assert.equal(query({ pageSize: 1_000_000 }).pageSize, 100);
  assert.equal(query({ pageSize: 2.0 }).pageSize, 2, '2.0 is the integer 2 in JSON');
});

test('pageSize: below 1, or not an integer, is refused, naming it', () => {
  const cases: [unknown, string][] = [
    [0, '0'],
    [-1, '-1'],
    [1.5, '1.5'],
    [100.5, '100.5'],
    ['10', '"10"'],
    [null, 'null'],
    [true, 'true'],
    [[5], '[5]'],
  ];
  for (const [pageSize, shown] of cases) assert.equal(refusal({ pageSize }), `Invalid params: pageSize must be an integer from 1, not ${shown}`);
});

// pageToken

test('pageToken "" or absent: the first page', () => {
  assert.equal(query({ pageToken: '' }).after, null);
  assert.equal(query({}).after, null);
});

test('pageToken: a nextPageToken this door answered names a position', () => {
  assert.deepEqual(query({ pageToken: TOKEN }).after, { change: 12, taskId: TASK, seal: 'abcdefghijklmnopqrstuv' });
});

test('pageToken: anything else is refused, naming it', () => {
  const expected = 'Invalid params: pageToken must be "" or a nextPageToken this door answered';
  for (const pageToken of ['garbage', 'MTI6dHNrXzAxYTE', btoa('12:tsk_1'), `${TOKEN} `, 1, null, true, {}]) {
    assert.equal(refusal({ pageToken }), expected, JSON.stringify(pageToken));
  }
});

// statusTimestampAfter

test('statusTimestampAfter: null or absent, every task', () => {
  assert.equal(query({ statusTimestampAfter: null }).statusTimestampAfterMs, null);
  assert.equal(query({}).statusTimestampAfterMs, null);
});

test('statusTimestampAfter: an RFC 3339 timestamp in any offset', () => {
  const at = Date.UTC(2026, 9, 13, 9, 0, 0);
  assert.equal(query({ statusTimestampAfter: '2026-10-13T09:00:00Z' }).statusTimestampAfterMs, at);
  assert.equal(query({ statusTimestampAfter: '2026-10-13T11:00:00+02:00' }).statusTimestampAfterMs, at);
  assert.equal(query({ statusTimestampAfter: '2026-10-13T03:30:00-05:30' }).statusTimestampAfterMs, at);
  assert.equal(query({ statusTimestampAfter: '2026-10-13T09:00:00.000+00:00' }).statusTimestampAfterMs, at);
  assert.equal(query({ statusTimestampAfter: '2026-10-13T09:00:00-00:00' }).statusTimestampAfterMs, at);
});

test('statusTimestampAfter: anything else is refused with the seed message', () => {
  for (const statusTimestampAfter of [
    '',
    'yesterday',
    '2026-10-13',
    '2026-10-13T09:00:00',
    '2026-10-13T9:00:00Z',
    1760000000000,
    true,
    {},
    ['2026-10-13T09:00:00Z'],
  ]) {
    assert.equal(refusal({ statusTimestampAfter }), TIMESTAMP_MESSAGE, JSON.stringify(statusTimestampAfter));
  }
});

// includeArtifacts

test('includeArtifacts: a boolean; absent, false', () => {
  assert.equal(query({ includeArtifacts: true }).includeArtifacts, true);
  assert.equal(query({ includeArtifacts: false }).includeArtifacts, false);
  assert.equal(query({}).includeArtifacts, false);
});

test('includeArtifacts: not a boolean is refused, naming it', () => {
  for (const includeArtifacts of ['true', 1, null, 0]) assert.equal(refusal({ includeArtifacts }), 'Invalid params: includeArtifacts must be a boolean');
});

// historyLength and other members

test('historyLength: any value, ignored', () => {
  for (const historyLength of [0, -5, 'x', null, {}, 1.5]) assert.deepEqual(query({ historyLength }), query({}));
});

test('other members are ignored', () => {
  assert.deepEqual(query({ filter: 'x', page_size: 'bad', context_id: 5, status_timestamp_after: 'nope' }), query({}));
});

// Order

test("the first parameter refused answers, in the seed's order", () => {
  const bad: [string, unknown][] = [
    ['contextId', 5],
    ['status', 'x'],
    ['pageSize', 0],
    ['pageToken', 'x'],
    ['statusTimestampAfter', 'x'],
    ['includeArtifacts', 'x'],
  ];
  for (let i = 0; i < bad.length; i++) {
    // Every parameter from i on is bad, given in reverse order: parameter i still answers.
    const params = Object.fromEntries(bad.slice(i).reverse());
    const message = refusal(params);
    assert.match(message, new RegExp(`^(Invalid params: )?${bad[i]![0]} must`), `${bad[i]![0]} answers`);
  }
});

test('order: a bad pageSize answers before a bad statusTimestampAfter even when historyLength is odd', () => {
  assert.equal(refusal({ historyLength: 'x', statusTimestampAfter: 'x', pageSize: -1 }), 'Invalid params: pageSize must be an integer from 1, not -1');
});
