import assert from 'node:assert/strict';
import test from 'node:test';
import { isLoopbackHost, parseHostPort, unbracketHost } from '../src/index.js';
import { ipv6Groups } from '../src/loopback.js';

test('loopback: localhost, 127.0.0.0/8 and ::1 in every spelling, bracketed or not', () => {
  for (const host of [
    'localhost',
    'LOCALHOST',
    '127.0.0.1',
    '127.1.2.3',
    '127.255.255.255',
    '::1',
    '[::1]',
    '0:0:0:0:0:0:0:1',
    '[0:0:0:0:0:0:0:1]',
    '0000:0000:0000:0000:0000:0000:0000:0001',
    '::0:1',
    '0::1',
    '::0001',
    '::ffff:127.0.0.1',
    '[::FFFF:127.9.9.9]',
    '::ffff:7f00:1',
  ]) {
    assert.equal(isLoopbackHost(host), true, host);
  }
});

test('not loopback: other addresses, names, malformed text', () => {
  for (const host of [
    '',
    '10.0.0.1',
    '128.0.0.1',
    '0.0.0.0',
    '127.0.0.256',
    '127.0.0',
    '127.0.0.1.5',
    '127.00.0.1',
    '::',
    '::2',
    '1::1',
    '::ffff:10.0.0.1',
    '[::1',
    '::1]',
    '[127.0.0.1]',
    '::1%lo',
    'example.com',
    '127.0.0.1.example.com',
    'localhost.example.com',
    '::1::1',
    '1:2:3:4:5:6:7:8:9',
  ]) {
    assert.equal(isLoopbackHost(host), false, host);
  }
});

test('ipv6Groups reads the spellings RFC 4291 allows', () => {
  assert.deepEqual(ipv6Groups('::1'), [0, 0, 0, 0, 0, 0, 0, 1]);
  assert.deepEqual(ipv6Groups('1:2:3:4:5:6:7:8'), [1, 2, 3, 4, 5, 6, 7, 8]);
  assert.deepEqual(ipv6Groups('1::8'), [1, 0, 0, 0, 0, 0, 0, 8]);
  assert.deepEqual(ipv6Groups('::127.0.0.1'), [0, 0, 0, 0, 0, 0, 0x7f00, 1]);
  assert.equal(ipv6Groups('1:2:3:4:5:6:7'), null);
  assert.equal(ipv6Groups('1:2:3:4:5:6:7::8'), null);
  assert.equal(ipv6Groups('12345::'), null);
});

test('host:port: names, IPv4 and bracketed IPv6 with a port in 1..65535', () => {
  assert.deepEqual(parseHostPort('127.0.0.1:41873'), { host: '127.0.0.1', port: 41873 });
  assert.deepEqual(parseHostPort('localhost:1'), { host: 'localhost', port: 1 });
  assert.deepEqual(parseHostPort('[::1]:65535'), { host: '[::1]', port: 65535 });
  assert.deepEqual(parseHostPort('[::ffff:127.0.0.1]:80'), { host: '[::ffff:127.0.0.1]', port: 80 });
  for (const text of [
    '127.0.0.1',
    '127.0.0.1:0',
    '127.0.0.1:65536',
    '127.0.0.1:123456',
    '::1:80',
    '[::1]',
    '[zz::1]:80',
    '[::1]:',
    'http://127.0.0.1:80',
    '127.0.0.1:80/x',
    ' 127.0.0.1:80',
  ]) {
    assert.equal(parseHostPort(text), null, text);
  }
  assert.equal(unbracketHost('[::1]'), '::1');
  assert.equal(unbracketHost('127.0.0.1'), '127.0.0.1');
});
