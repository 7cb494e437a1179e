import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withLazyDateTimeFormat } from './lazy-date-time-format.js';

/** Replaces Intl.DateTimeFormat with a constructor that counts its calls, for the length of `run`. */
async function countingConstructions(run: (constructions: () => number) => Promise<void>): Promise<void> {
  const Real = Intl.DateTimeFormat;
  let count = 0;
  const counting = function CountingDateTimeFormat(locales?: Intl.LocalesArgument, options?: Intl.DateTimeFormatOptions) {
    count += 1;
    return new Real(locales, options);
  };
  Intl.DateTimeFormat = counting as unknown as typeof Intl.DateTimeFormat;
  try {
    await run(() => count);
  } finally {
    Intl.DateTimeFormat = Real;
  }
}

const OPTIONS: Intl.DateTimeFormatOptions = { year: 'numeric', month: '2-digit', day: '2-digit', hour: 'numeric', minute: 'numeric', timeZone: 'UTC' };

test('a formatter built while the modules load is built for real only when first used, and formats as the real one', async () => {
  await countingConstructions(async (constructions) => {
    const formatter = await withLazyDateTimeFormat(async () => new Intl.DateTimeFormat('en-US', OPTIONS));
    assert.equal(constructions(), 0, 'nothing built while loading');
    const at = Date.UTC(2026, 11, 1, 13, 48);
    assert.equal(formatter.format(at), new Intl.DateTimeFormat('en-US', OPTIONS).format(at));
    assert.equal(constructions(), 2, 'the lazy one and the reference');
    assert.deepEqual(formatter.formatToParts(at), new Intl.DateTimeFormat('en-US', OPTIONS).formatToParts(at));
    assert.equal(formatter.resolvedOptions().timeZone, 'UTC');
    assert.equal(constructions(), 3, 'the lazy formatter was built once');
  });
});

test('Intl.DateTimeFormat is the real constructor again once the load ends, resolved or rejected', async () => {
  const Real = Intl.DateTimeFormat;
  assert.equal(await withLazyDateTimeFormat(async () => Intl.DateTimeFormat === Real), false);
  assert.equal(Intl.DateTimeFormat, Real);
  await assert.rejects(
    withLazyDateTimeFormat(async () => {
      throw new Error('the module failed to load');
    }),
    /the module failed to load/,
  );
  assert.equal(Intl.DateTimeFormat, Real);
  assert.equal(new Intl.DateTimeFormat('en-US', OPTIONS).format(0), '01/01/1970, 12:00 AM');
});
