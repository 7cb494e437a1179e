import assert from 'node:assert/strict';
import { test } from 'node:test';
import { admits, readAllowEntry } from './allow-entries.js';
import { allowsMemberDoor, allowsUrl, listsLocalhost } from './member-egress.js';

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
  assert.equal(listsLocalhost(['localhost:*'], null), true);
  assert.equal(listsLocalhost(['localhost:4000'], null), false);
  assert.equal(allowsUrl(['peer.example:443'], new URL('https://PEER.example/x')), true);
  assert.equal(allowsUrl(['peer.example:443'], new URL('http://peer.example/x')), false);
});

test("a member's door: exactly one of the formation's doors, and the list names localhost for its port", () => {
  const loopback = new Set(['http://127.0.0.1:40001', 'http://127.0.0.1:40002']);
  assert.equal(allowsMemberDoor(['localhost'], new URL('http://127.0.0.1:40001'), loopback), true);
  assert.equal(allowsMemberDoor(['127.0.0.1:40002'], new URL('http://127.0.0.1:40002'), loopback), true);
  assert.equal(allowsMemberDoor(['localhost:40002'], new URL('http://127.0.0.1:40001'), loopback), false);
  assert.equal(allowsMemberDoor(['api.example.com'], new URL('http://127.0.0.1:40001'), loopback), false);
  // A loopback door that is not the formation's is not a member's door.
  assert.equal(allowsMemberDoor(['localhost'], new URL('http://127.0.0.1:40003'), loopback), false);

  // mur run --roster --host 10.0.0.5: localhost admits the formation's doors on that address, and nothing else there.
  const onHost = new Set(['http://10.0.0.5:40001', 'http://10.0.0.5:40002']);
  assert.equal(allowsMemberDoor(['localhost'], new URL('http://10.0.0.5:40001/'), onHost), true);
  assert.equal(allowsMemberDoor(['localhost:40002'], new URL('http://10.0.0.5:40002'), onHost), true);
  assert.equal(allowsMemberDoor(['localhost:40002'], new URL('http://10.0.0.5:40001'), onHost), false);
  assert.equal(allowsMemberDoor(['localhost'], new URL('http://10.0.0.5:40003'), onHost), false);
  assert.equal(allowsMemberDoor(['localhost'], new URL('http://10.0.0.6:40001'), onHost), false);
  assert.equal(allowsMemberDoor(['localhost'], new URL('https://10.0.0.5:40001'), onHost), false);
  assert.equal(allowsMemberDoor([], new URL('http://10.0.0.5:40001'), onHost), false);
  assert.equal(allowsUrl(['localhost'], new URL('http://10.0.0.5:40001')), false);
});
