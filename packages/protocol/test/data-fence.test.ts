import assert from 'node:assert/strict';
import test from 'node:test';
import { renderFence } from '../src/index.js';
import { renderDataPart } from '../src/data-fence.js';

// Seed "Parts": a data part is its value pretty-printed in a Markdown code fence labelled data, followed by
// media-type=<mediaType> and filename=<filename> when the part has them. Whitespace, backticks and = in those
// values become _. The fence is one backtick longer than the longest run of backticks in the value, and at least three.

test('the seed example, to the letter', () => {
  assert.equal(
    renderDataPart({ note: 'a ``` b', rows: [1, 2] }, 'application/json'),
    '````data media-type=application/json\n{\n  "note": "a ``` b",\n  "rows": [\n    1,\n    2\n  ]\n}\n````',
  );
});

test('a value without backticks gets a three-backtick fence', () => {
  assert.equal(renderDataPart({ a: 1 }), '```data\n{\n  "a": 1\n}\n```');
});

test('one or two backticks in a row still give three', () => {
  assert.equal(renderDataPart('`'), '```data\n"`"\n```');
  assert.equal(renderDataPart('a `` b ` c'), '```data\n"a `` b ` c"\n```');
});

test('the fence is one longer than the longest run, wherever the run is', () => {
  assert.equal(renderDataPart('`````'), '``````data\n"`````"\n``````');
  assert.equal(renderDataPart({ '````': 'x ``` y' }), '`````data\n{\n  "````": "x ``` y"\n}\n`````');
  assert.equal(renderDataPart(['``', '```````', '`']), '````````data\n[\n  "``",\n  "```````",\n  "`"\n]\n````````');
});

test('the value is pretty-printed with two spaces', () => {
  assert.equal(
    renderDataPart({ a: { b: [true, null] }, c: 'd' }),
    '```data\n{\n  "a": {\n    "b": [\n      true,\n      null\n    ]\n  },\n  "c": "d"\n}\n```',
  );
});

test('scalars, null, and empty containers', () => {
  assert.equal(renderDataPart(null), '```data\nnull\n```');
  assert.equal(renderDataPart(0), '```data\n0\n```');
  assert.equal(renderDataPart(false), '```data\nfalse\n```');
  assert.equal(renderDataPart('s'), '```data\n"s"\n```');
  assert.equal(renderDataPart([]), '```data\n[]\n```');
  assert.equal(renderDataPart({}), '```data\n{}\n```');
});

test('newlines in strings stay escaped inside the JSON', () => {
  assert.equal(renderDataPart('a\nb'), '```data\n"a\\nb"\n```');
});

test('media-type, then filename, in the opening line', () => {
  assert.equal(renderDataPart(1, 'application/json', 'rows.json'), '```data media-type=application/json filename=rows.json\n1\n```');
  assert.equal(renderDataPart(1, undefined, 'rows.json'), '```data filename=rows.json\n1\n```');
  assert.equal(renderDataPart(1, 'text/csv'), '```data media-type=text/csv\n1\n```');
});

test('whitespace, backticks and = in mediaType become _', () => {
  assert.equal(renderDataPart(1, 'text/plain; charset=utf-8'), '```data media-type=text/plain;_charset_utf-8\n1\n```');
  assert.equal(renderDataPart(1, 'a`b\tc\nd\re  f'), '```data media-type=a_b_c_d_e__f\n1\n```');
});

test('whitespace, backticks and = in filename become _', () => {
  assert.equal(renderDataPart(1, undefined, 'my file=`x`.json'), '```data filename=my_file__x_.json\n1\n```');
  assert.equal(renderDataPart(1, 'application/json', ' a\u00a0b\u2003c '), '```data media-type=application/json filename=_a_b_c_\n1\n```');
});

test('backticks in the label do not lengthen the fence: they become _', () => {
  assert.equal(renderDataPart(1, '``````', '````'), '```data media-type=______ filename=____\n1\n```');
});

test('other characters in the label are kept', () => {
  assert.equal(renderDataPart(1, 'application/vnd.a+json', 'ä-ö_ü.json'), '```data media-type=application/vnd.a+json filename=ä-ö_ü.json\n1\n```');
});

test('an empty mediaType or filename is still named', () => {
  assert.equal(renderDataPart(1, '', ''), '```data media-type= filename=\n1\n```');
});

test('renderFence: a labelled fence, at least three backticks, one longer than any run inside', () => {
  assert.equal(renderFence('response', 'four'), '```response\nfour\n```');
  assert.equal(renderFence('response', 'use ``` fences'), '````response\nuse ``` fences\n````');
  assert.equal(renderFence('response', '``'), '```response\n``\n```');
  assert.equal(renderFence('response', ''), '```response\n\n```');
});
