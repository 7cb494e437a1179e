/** Template values reach a shell as text, never as code (issue 16): shellQuote's word reads back as the value in bash. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { shellQuote } from './shell-quote.js';

test('shellQuote reads back as the value in bash, whatever it holds', () => {
  assert.equal(shellQuote("it's"), `'it'\\''s'`);
  assert.equal(shellQuote('main'), 'main');
  assert.equal(shellQuote(''), `''`);
  assert.equal(shellQuote('a b'), `'a b'`);
});
