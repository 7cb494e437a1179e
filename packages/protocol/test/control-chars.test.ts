import assert from 'node:assert/strict';
import { test } from 'node:test';
import { escapeControlCharacters } from '../src/index.js';

test('terminal sequences are shown, not acted on: a screen clear, a clipboard write, a title, 8-bit CSI', () => {
  assert.equal(escapeControlCharacters('\u001b[2J\u001b[H'), '\\u001b[2J\\u001b[H');
  assert.equal(escapeControlCharacters('\u001b]52;c;cm0gLXJmIC8=\u0007'), '\\u001b]52;c;cm0gLXJmIC8=\\u0007');
  assert.equal(escapeControlCharacters('\u001b]0;pwned\u001b\\'), '\\u001b]0;pwned\\u001b\\');
  assert.equal(escapeControlCharacters('\u009b31m'), '\\u009b31m');
  assert.equal(escapeControlCharacters('a\u0000b\u007f'), 'a\\u0000b\\u007f');
});

test('newlines, tabs and CRLF stay; a bare carriage return (which prints over a line) does not', () => {
  assert.equal(escapeControlCharacters('one\ttwo\nthree\r\nfour'), 'one\ttwo\nthree\r\nfour');
  assert.equal(escapeControlCharacters('rm -rf /\rls -l'), 'rm -rf /\\rls -l');
  assert.equal(escapeControlCharacters('end\r'), 'end\\r');
});

test('bidirectional controls that reorder what is shown are escaped; other text, emoji included, is not', () => {
  assert.equal(escapeControlCharacters('access\u202e\u2066 level\u2069\u2066'), 'access\\u202e\\u2066 level\\u2069\\u2066');
  assert.equal(escapeControlCharacters('plain ASCII, ünïcödé, 日本, 🎉'), 'plain ASCII, ünïcödé, 日本, 🎉');
});

test('JSON reads the escapes back as the same characters', () => {
  const text = 'x\u001b[31my\u009b\u202e';
  assert.equal(JSON.parse(escapeControlCharacters(JSON.stringify(text))), text);
});
