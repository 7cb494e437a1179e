import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tomlKey, tomlValue } from './toml-value.js';

test('JSON values as TOML: strings with their escapes, numbers, booleans, arrays, inline tables with quoted keys where needed', () => {
  assert.equal(tomlValue('a "b"\nc'), '"a \\"b\\"\\nc"');
  assert.equal(
    tomlValue({ base_url: 'http://x', retries: 2, on: true, list: ['a', 1], 'a.b': {} }),
    '{base_url = "http://x", retries = 2, on = true, list = ["a", 1], "a.b" = {}}',
  );
  assert.equal(tomlKey('model_reasoning_effort'), 'model_reasoning_effort');
  assert.throws(() => tomlValue(null), /null has no TOML form/);
});
