/** The WIT level a component fits (docs/artifacts.md, "The WIT level"), read from its WIT as wasm-tools prints it. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { doesNotFit, levelOf, witFit } from './wit-level.js';

const world = (...items: string[]) => `package root:component;\n\nworld root {\n${items.map((i) => `  ${i};`).join('\n')}\n}\n`;

test('a component exporting murmur:tool/run@0.1.x and importing only what level 0.1 serves fits', () => {
  assert.deepEqual(
    witFit(
      world(
        'import murmur:task/task@0.1.0',
        'import murmur:text/chunks@0.1.3',
        'import wasi:random/random@0.2.6',
        'import wasi:clocks/wall-clock@0.2.0',
        'export murmur:tool/run@0.1.2',
      ),
    ),
    { fits: true },
  );
  assert.deepEqual(witFit(world('export murmur:tool/run@0.1.0')), { fits: true });
});

test('another level, an interface the level does not serve, or no tool export does not fit', () => {
  assert.deepEqual(witFit(world('export murmur:tool/run@0.2.0')), { fits: false, level: '0.2', why: 'it exports murmur:tool/run@0.2.0' });
  assert.deepEqual(witFit(world('import murmur:task/task@0.2.0', 'export murmur:tool/run@0.1.0')), {
    fits: false,
    level: '0.2',
    why: 'it imports murmur:task/task@0.2.0, which WIT level 0.1 does not serve',
  });
  assert.deepEqual(witFit(world('import wasi:filesystem/types@0.2.0', 'export murmur:tool/run@0.1.0')), {
    fits: false,
    level: '0.1',
    why: 'it imports wasi:filesystem/types@0.2.0, which WIT level 0.1 does not serve',
  });
  assert.deepEqual(witFit(world('export wasi:cli/run@0.2.0')), { fits: false, level: null, why: 'it exports no murmur:tool/run' });
  assert.deepEqual(witFit(world('export murmur:tool/run@1.0.0')), { fits: false, level: '1', why: 'it exports murmur:tool/run@1.0.0' });
  assert.equal(levelOf('0.3.7'), '0.3');
  assert.equal(levelOf('2.1.0'), '2');
});

test('the refusal carries E-WIT-LEVEL-001 and names the newest version that fits, or that none does', () => {
  const fit = { fits: false as const, level: '0.2', why: 'it exports murmur:tool/run@0.2.0' };
  assert.equal(
    doesNotFit('acme/wc', '2.0.0', fit, '1.2.0'),
    'does-not-fit: E-WIT-LEVEL-001: acme/wc 2.0.0 is built for WIT level 0.2 (it exports murmur:tool/run@0.2.0), and this mur serves WIT level 0.1; the newest version that fits is 1.2.0',
  );
  assert.match(
    doesNotFit('acme/wc', '2.0.0', { fits: false, level: null, why: 'x' }, null),
    /is built for no WIT level this mur knows \(x\), .*; no version of acme\/wc fits$/,
  );
});
