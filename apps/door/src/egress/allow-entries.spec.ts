import assert from 'node:assert/strict';
import { test } from 'node:test';
import { admits, readAllowEntry } from './allow-entries.js';
import { allowsMemberDoor, allowsUrl } from './member-egress.js';

test('the grammar: host, host:* or host:port, case-insensitive; the loopback names read localhost; anything else admits nothing', () => {
  assert.deepEqual(readAllowEntry(' LocalHost '), { host: 'localhost', port: 'any' });
  assert.deepEqual(readAllowEntry('127.0.0.1:*'), { host: 'localhost', port: 'any' });
  assert.deepEqual(readAllowEntry('api.example.com:443'), { host: 'api.example.com', port: 443 });
  for (const bad of ['', ':80', 'a:0', 'a:080', 'a:65536', 'a:http', '[::1]:80', 'a:1:2']) assert.equal(readAllowEntry(bad), null, bad);
});

test('what an entry admits: a bare host or :* any port, host:port that port only', () => {
  assert.equal(admits(['localhost'], '127.0.0.1', 9000), true);
  assert.equal(admits(['127.0.0.1:9000'], 'localhost', 9000), true);
  assert.equal(admits(['127.0.0.1:9000'], 'localhost', 9001), false);
  assert.equal(admits(['api.example.com'], 'localhost', 80), false);
  assert.equal(allowsMemberDoor(['localhost:*'], null), true);
  assert.equal(allowsMemberDoor(['localhost:4000'], null), false);
  assert.equal(allowsUrl(['peer.example:443'], new URL('https://PEER.example/x')), true);
  assert.equal(allowsUrl(['peer.example:443'], new URL('http://peer.example/x')), false);
});
