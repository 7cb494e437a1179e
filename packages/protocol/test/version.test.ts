import assert from 'node:assert/strict';
import test from 'node:test';
import { A2A_VERSION, A2A_VERSION_HEADER, negotiateVersion, versionNotSupported } from '../src/index.js';

// Seed "A2A-Version": the door speaks 1.0; 1.0 and 1.0.<digits> are served, anything else is -32009.

test('the door speaks 1.0 and reads the A2A-Version header', () => {
  assert.equal(A2A_VERSION, '1.0');
  assert.equal(A2A_VERSION_HEADER, 'A2A-Version');
});

for (const value of ['1.0', '1.0.1', '1.0.0', '1.0.42', '1.0.1234567890']) {
  test(`A2A-Version ${JSON.stringify(value)} is served`, () => {
    assert.deepEqual(negotiateVersion([value]), { ok: true });
  });
}

for (const value of [' 1.0', '1.0 ', '  1.0.1\t', '\t1.0\t']) {
  test(`surrounding whitespace is ignored: ${JSON.stringify(value)} is served`, () => {
    assert.deepEqual(negotiateVersion([value]), { ok: true });
  });
}

test('an absent header reads as version 0.3 and is refused, requestedVersion ""', () => {
  assert.deepEqual(negotiateVersion([]), { ok: false, requestedVersion: '' });
});

test('an empty header is refused, requestedVersion ""', () => {
  assert.deepEqual(negotiateVersion(['']), { ok: false, requestedVersion: '' });
});

for (const value of ['0.3', '1', '1.1', '2.0', '1.0x', '1.0.', '1.0.1a', '1.0.1.2', 'v1.0', '1.00', '01.0', '1,0', '1.0.-1', '1.0 1.0', '*']) {
  test(`A2A-Version ${JSON.stringify(value)} is refused with requestedVersion as sent`, () => {
    assert.deepEqual(negotiateVersion([value]), { ok: false, requestedVersion: value });
  });
}

test('more than one A2A-Version line is refused whatever the values, joined with ","', () => {
  assert.deepEqual(negotiateVersion(['1.0', '1.0']), { ok: false, requestedVersion: '1.0,1.0' });
  assert.deepEqual(negotiateVersion(['1.0', '0.3']), { ok: false, requestedVersion: '1.0,0.3' });
  assert.deepEqual(negotiateVersion(['1.0.1', '1.0', '2.0']), { ok: false, requestedVersion: '1.0.1,1.0,2.0' });
  assert.deepEqual(negotiateVersion(['', '']), { ok: false, requestedVersion: ',' });
});

test('the refusal of an absent version is the seed example, to the letter', () => {
  const verdict = negotiateVersion([]);
  assert.equal(verdict.ok, false);
  if (verdict.ok) return;
  assert.deepEqual(versionNotSupported(verdict.requestedVersion), {
    code: -32009,
    message: "A2A version '' is not supported; this agent speaks 1.0",
    data: [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'VERSION_NOT_SUPPORTED',
        domain: 'a2a-protocol.org',
        metadata: { requestedVersion: '', supportedVersions: '1.0' },
      },
    ],
  });
});

test('the refusal of several lines names every value joined with ","', () => {
  const verdict = negotiateVersion(['1.0', '0.3']);
  assert.equal(verdict.ok, false);
  if (verdict.ok) return;
  const error = versionNotSupported(verdict.requestedVersion);
  assert.equal(error.code, -32009);
  assert.equal(error.message, "A2A version '1.0,0.3' is not supported; this agent speaks 1.0");
  assert.deepEqual(error.data?.[0]?.metadata, { requestedVersion: '1.0,0.3', supportedVersions: '1.0' });
});

test('a refused 0.3 names it in the message and metadata', () => {
  const error = versionNotSupported('0.3');
  assert.equal(error.message, "A2A version '0.3' is not supported; this agent speaks 1.0");
  assert.deepEqual(error.data?.[0]?.metadata, { requestedVersion: '0.3', supportedVersions: '1.0' });
});
