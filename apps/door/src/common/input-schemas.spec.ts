/**
 * The one compile of a tool's input schema (docs/artifacts.md, "The artifact"): what strict Ajv refuses, in its own
 * words and bounded, and that neither the manifest checker nor an inventory's Ajv keeps anything of a schema between
 * two compiles (a failed one, or a `$id` another schema also has).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compileInputSchema, InputSchemaFault, inputSchemaAjv, inputSchemaFault } from './input-schemas.js';

describe('an input schema Ajv does not compile', () => {
  test('is named with Ajv’s own words: an unknown keyword or format, a bad type, a $ref to nowhere, strict rules', async () => {
    const cases: [object, string][] = [
      [{ type: 'object', properties: { a: { type: 'string', foo: 1 } } }, 'strict mode: unknown keyword: "foo"'],
      [{ type: 'object', properties: { a: { type: 'string', format: 'email' } } }, 'unknown format "email" ignored in schema at path "#/properties/a"'],
      [{ type: 'object', properties: { a: { $ref: '#/$defs/nope' } } }, "can't resolve reference #/$defs/nope from id #"],
      [{ type: 'object', properties: { a: { $ref: 'https://example.com/s.json' } } }, "can't resolve reference https://example.com/s.json from id #"],
      [{ type: 'object', required: ['a'] }, 'strict mode: required property "a" is not defined at "#" (strictRequired)'],
    ];
    for (const [schema, said] of cases) assert.equal(await inputSchemaFault(schema), said, JSON.stringify(schema));
    assert.match(
      (await inputSchemaFault({ type: 'object', properties: { a: { type: 'strng' } } })) ?? '',
      /^schema is invalid: data\/properties\/a\/type must be/,
    );
  });

  test('a schema that compiles is null, and the checker keeps none: a $id compiled twice, a failed schema fixed', async () => {
    assert.equal(await inputSchemaFault({ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }), null);
    assert.equal(await inputSchemaFault({ $id: 'https://acme.example/x', type: 'object', properties: {} }), null);
    assert.equal(await inputSchemaFault({ $id: 'https://acme.example/x', type: 'object', properties: { b: { type: 'number' } } }), null);
    const schema: Record<string, unknown> = { type: 'object', properties: { a: { $ref: '#/$defs/a' } } };
    assert.notEqual(await inputSchemaFault(schema), null);
    schema.$defs = { a: { type: 'string' } };
    assert.equal(await inputSchemaFault(schema), null, 'a schema object that failed once is compiled afresh');
  });

  test('Ajv’s words are cut at 300 characters: they repeat the publisher’s', async () => {
    const said = (await inputSchemaFault({ type: 'object', [`x${'k'.repeat(10_000)}`]: 1 })) ?? '';
    assert.equal(said.length, 300);
    assert.ok(said.startsWith('strict mode: unknown keyword: "xkkk') && said.endsWith('k…'), said);
  });

  test('an inventory’s Ajv: a failed compile throws InputSchemaFault, and two tools’ schemas of one $id both compile', async () => {
    const ajv = await inputSchemaAjv();
    assert.throws(
      () => compileInputSchema(ajv, { type: 'object', foo: 1 }),
      (error: unknown) => error instanceof InputSchemaFault && error.message === 'strict mode: unknown keyword: "foo"',
    );
    const one = compileInputSchema(ajv, { $id: 'https://acme.example/same', type: 'object', properties: { a: { type: 'string' } } });
    const two = compileInputSchema(ajv, { $id: 'https://acme.example/same', type: 'object', properties: { a: { type: 'number' } } });
    assert.deepEqual([one({ a: 'x' }), two({ a: 'x' }), two({ a: 1 })], [true, false, true]);
  });
});
