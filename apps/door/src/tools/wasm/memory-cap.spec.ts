/** A core module's memories capped before it is compiled (docs/artifacts.md, "WebAssembly tools"). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from '@bytecodealliance/jco-transpile/wasm-tools';
import { capMemories, MemoryUnbounded } from './memory-cap.js';
import { webAssembly } from './wasm-api.js';

const MIB = 1024 * 1024;

async function grownTo(wat: string, cap: number): Promise<number> {
  const module = await webAssembly.compile(capMemories(await parse(wat), cap));
  const instance = await webAssembly.instantiate(module, {});
  return (instance.exports.grow as (pages: number) => number)(512);
}

test('a memory with no maximum, or one above the bound, gets the bound as its maximum: a grow past it fails', async () => {
  const noMax = '(module (memory (export "m") 1) (func (export "grow") (param i32) (result i32) (memory.grow (local.get 0))))';
  assert.equal(await grownTo(noMax, 64 * MIB), 1, 'within the bound the grow succeeds, from 1 page');
  assert.equal(await grownTo(noMax, 16 * MIB), -1, 'past the bound it fails');
  const bigMax = '(module (memory (export "m") 1 65536) (func (export "grow") (param i32) (result i32) (memory.grow (local.get 0))))';
  assert.equal(await grownTo(bigMax, 16 * MIB), -1);
  const smallMax = '(module (memory (export "m") 1 2) (func (export "grow") (param i32) (result i32) (memory.grow (local.get 0))))';
  assert.equal(await grownTo(smallMax, 64 * MIB), -1, 'a smaller maximum of its own stays');
});

test('a memory that starts past the bound, or is 64-bit or shared, is refused', async () => {
  assert.throws(() => capMemories(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 5, 3, 1, 0, 0x80, 0x02]), MIB), MemoryUnbounded);
  const shared = await parse('(module (memory 1 2 shared))');
  assert.throws(() => capMemories(shared, 64 * MIB), /64-bit or shared/);
});
