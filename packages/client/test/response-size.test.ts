import assert from 'node:assert/strict';
import test from 'node:test';
import { isInvalidResponseError, MurmurClient } from '../src/index.js';
import { startServer } from './support/server.js';
import { task } from './support/wire.js';

// maxResponseSize holds for every one-shot answer, whatever the other side sends: a body past it fails the call with
// InvalidResponseError('too-large'), not retried, without the rest being read.

test('an answer whose Content-Length passes maxResponseSize fails before its body is read', async () => {
  let wrote = 0;
  const door = await startServer(async (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(64 * 1024 * 1024) });
    res.write('{"jsonrpc":"2.0"');
    wrote += 1;
    // The rest never comes: a client reading it all would wait here.
  });
  try {
    const client = new MurmurClient(door.url, { maxResponseSize: 1024 });
    const error = await client.getTask('tsk_1').catch((e: unknown) => e);
    assert.ok(isInvalidResponseError(error));
    assert.equal(error.reason, 'too-large');
    assert.equal(error.status, 200);
    assert.equal(error.retryable, false);
    assert.equal(error.message, `GetTask: the answer from ${door.url}/ is larger than the client's maxResponseSize (1024 bytes)`);
    assert.equal(wrote, 1, 'asked once: not retried');
  } finally {
    await door.close();
  }
});

test('a chunked answer fails once it passes maxResponseSize; one within it is read whole', async () => {
  const door = await startServer(async (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const body = JSON.stringify({ jsonrpc: '2.0', id: req.rpc!.id, result: task('tsk_1', 'TASK_STATE_WORKING') });
    // In pieces, and with no length: the client counts what arrives.
    for (let i = 0; i < body.length; i += 100) res.write(body.slice(i, i + 100));
    res.end(req.rpc!.params?.id === 'tsk_padded' ? ' '.repeat(5000) : '');
  });
  try {
    const small = new MurmurClient(door.url, { maxResponseSize: 2000 });
    assert.equal((await small.getTask('tsk_1')).id, 'tsk_1');
    const error = await small.getTask('tsk_padded').catch((e: unknown) => e);
    assert.ok(isInvalidResponseError(error));
    assert.equal(error.reason, 'too-large');
  } finally {
    await door.close();
  }
});
