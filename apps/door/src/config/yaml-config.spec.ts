/**
 * The one YAML-config reader and its one problem format (config-problem.ts): every bad key of a file at once, each
 * `<path>: found <value>; allowed: <what is allowed>`, the path in `a.b[0]` form, what is allowed worded from the
 * schema (its keys, enum values, bounds) or from a rule's own message.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as z from 'zod';
import { ConfigError, configPath, shown } from './config-problem.js';
import { parseYamlConfig } from './yaml-config.js';

class SampleError extends ConfigError {
  override readonly name = 'SampleError';
}

const schema = z.strictObject({
  name: z.string().regex(/^[a-z]+$/, 'a name: lowercase letters'),
  mode: z.enum(['fast', 'slow']).default('fast'),
  count: z.number().int().min(1).max(10).optional(),
  ratio: z.number().positive().optional(),
  tags: z.array(z.string().min(1)).default([]),
  flag: z.boolean().default(false),
  nested: z.strictObject({ deep: z.strictObject({ leaf: z.literal('http').default('http') }).prefault({}) }).prefault({}),
  people: z.record(z.string().regex(/^[a-z]+$/, 'a person: lowercase letters'), z.strictObject({ age: z.number().int().min(0) })).default({}),
  pick: z
    .discriminatedUnion('kind', [z.strictObject({ kind: z.literal('a'), a: z.string() }), z.strictObject({ kind: z.literal('b'), b: z.number() })])
    .optional(),
});

/** The refusal `text` earns, as the reader throws it. */
function refusal(text: string): SampleError {
  try {
    parseYamlConfig(text, '/x/sample.yaml', schema, SampleError);
  } catch (error) {
    assert.ok(error instanceof SampleError, String(error));
    return error;
  }
  assert.fail('the text was accepted');
}

test('every bad key is reported at once, one line each: path, the value found, what is allowed', () => {
  const error = refusal(
    [
      'name: Bob',
      'mode: sometimes',
      'count: 11',
      'ratio: 0',
      'tags: [ok, ""]',
      'flag: "yes"',
      'nested: { deep: { leaf: ws, extra: 1 } }',
      'people: { Ann: { age: 3 }, bo: { age: -1 } }',
      'pick: { kind: b, b: nine }',
      'colour: blue',
    ].join('\n'),
  );
  assert.equal(
    error.message,
    [
      '/x/sample.yaml:',
      '  name: found "Bob"; allowed: a name: lowercase letters',
      '  mode: found "sometimes"; allowed: one of "fast", "slow"',
      '  count: found 11; allowed: an integer from 1 to 10',
      '  ratio: found 0; allowed: a number above 0',
      '  tags[1]: found ""; allowed: a non-empty string',
      '  flag: found "yes"; allowed: true or false',
      '  nested.deep.leaf: found "ws"; allowed: "http"',
      '  nested.deep: found unknown key "extra"; allowed: the keys leaf',
      '  people.Ann: found the key "Ann"; allowed: a person: lowercase letters',
      '  people.bo.age: found -1; allowed: an integer from 0',
      '  pick.b: found "nine"; allowed: a number',
      '  (top level): found unknown key "colour"; allowed: the keys name, mode, count, ratio, tags, flag, nested, people, pick',
    ].join('\n'),
  );
  assert.equal(error.source, '/x/sample.yaml');
  assert.equal(error.problems.length, 12);
  assert.deepEqual(error.problems[0], { path: 'name', found: '"Bob"', allowed: 'a name: lowercase letters' });
});

test('a missing key is found as nothing; a discriminator names its options; a list is described with its entries', () => {
  assert.equal(refusal('mode: fast').message, '/x/sample.yaml:\n  name: found nothing; allowed: a string');
  assert.equal(refusal('name: a\npick: { kind: c }').message, '/x/sample.yaml:\n  pick.kind: found "c"; allowed: one of "a", "b"');
  assert.equal(refusal('name: a\ntags: nope').message, '/x/sample.yaml:\n  tags: found "nope"; allowed: a list, each a non-empty string');
});

test('not a mapping, an empty file, not YAML, a key given twice: the file names itself', () => {
  assert.equal(refusal('- a\n- b\n').message, '/x/sample.yaml:\n  (top level): found ["a","b"]; allowed: a mapping of keys');
  assert.equal(refusal('').message, '/x/sample.yaml:\n  (top level): found an empty document; allowed: a mapping of keys');
  assert.match(refusal('name: [a\n').message, /^\/x\/sample\.yaml: not valid YAML: /);
  assert.match(refusal('name: a\nname: b\n').message, /^\/x\/sample\.yaml: not valid YAML: Map keys must be unique/);
  assert.deepEqual(refusal('name: [a\n').problems, []);
});

test('a good file is its schema output, defaults filled in', () => {
  assert.deepEqual(parseYamlConfig('name: a\ncount: 2\n', '/x/sample.yaml', schema, SampleError), {
    name: 'a',
    mode: 'fast',
    count: 2,
    tags: [],
    flag: false,
    nested: { deep: { leaf: 'http' } },
    people: {},
  });
});

test('paths: keys by dots, list indexes in brackets, a key that is not a plain word quoted', () => {
  assert.equal(configPath([]), '(top level)');
  assert.equal(configPath(['capabilities', 'shell', 'allow', 0]), 'capabilities.shell.allow[0]');
  assert.equal(configPath(['rules', 2, 'turns', 0, 'ask']), 'rules[2].turns[0].ask');
  assert.equal(configPath(['members', 'a b', 'capsule']), 'members["a b"].capsule');
  assert.equal(configPath([0]), '[0]');
});

test('values are quoted as JSON and cut when long', () => {
  assert.equal(shown('x'), '"x"');
  assert.equal(shown(3), '3');
  assert.equal(shown(undefined), 'nothing');
  assert.equal(shown({ a: [1] }), '{"a":[1]}');
  const long = shown('y'.repeat(200));
  assert.equal(long.length, 80);
  assert.ok(long.endsWith('…'));
});
