/**
 * The WASM host against a hostile component, in real worker threads (docs/artifacts.md, "What an attacker can and
 * cannot do"): a flood of empty chunks, a chunk too large, request-input without end, wasi:filesystem — refused
 * by the level, and given nothing (no preopen) even if run — and the transpiler's own memories, bounded.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { componentEmbed, componentNew, parse } from '@bytecodealliance/jco-transpile/wasm-tools';
import { ContentDigest } from '../../artifacts/content-digest.js';
import { witFit } from '../../artifacts/wit-level.js';
import { ComponentUnprepared, TRANSPILER_MEMORY_BYTES, type WasmCallContext, WasmHost } from './wasm-host.js';

const tempDir = (prefix: string) => mkdtempSync(path.join(os.tmpdir(), `murmur-${prefix}-`));
/** The runtime's WIT package, apps/door/wit, from where the spec runs (dist/src/tools/wasm). */
const WIT_FILE = fileURLToPath(new URL('../../../../wit/murmur.wit', import.meta.url));

/** A component of `wat` against the runtime's WIT, or against `wit`. */
async function componentOf(wat: string, wit = readFileSync(WIT_FILE, 'utf8')): Promise<Uint8Array> {
  return componentNew(await componentEmbed({ binary: await parse(wat), witSource: wit, world: 'tool' }));
}

/** A bump allocator and a memory, as every fixture's core module needs them. */
const REALLOC = `(memory (export "memory") 2)
  (global $heap (mut i32) (i32.const 4096))
  (func (export "cabi_realloc") (param i32 i32 i32 i32) (result i32)
    (local $at i32) (local.set $at (global.get $heap)) (global.set $heap (i32.add (global.get $heap) (local.get 3))) (local.get $at))`;

/** Streams empty chunks without end: no byte bound is ever reached, only the count. */
const EMPTY_CHUNKS_WAT = `(module
  (import "murmur:text/chunks@0.1.0" "text" (func $text (param i32 i32)))
  ${REALLOC}
  (func (export "murmur:tool/run@0.1.0#run") (param i32 i32) (result i32)
    (loop $more (call $text (i32.const 0) (i32.const 0)) (br $more)) (i32.const 0)))`;

/** Streams one chunk of 65,537 bytes. */
const BIG_CHUNK_WAT = `(module
  (import "murmur:text/chunks@0.1.0" "thinking" (func $thinking (param i32 i32)))
  ${REALLOC}
  (func (export "murmur:tool/run@0.1.0#run") (param i32 i32) (result i32)
    (call $thinking (i32.const 0) (i32.const 65537)) (i32.const 0)))`;

/** Asks for input while the answers are ok, then returns the first err it was answered as its own err. */
const ASKING_WAT = `(module
  (import "murmur:task/task@0.1.0" "request-input" (func $ask (param i32 i32 i32)))
  ${REALLOC}
  (data (i32.const 1024) "again?")
  (func (export "murmur:tool/run@0.1.0#run") (param i32 i32) (result i32)
    (loop $more
      (global.set $heap (i32.const 4096))
      (call $ask (i32.const 1024) (i32.const 6) (i32.const 2048))
      (br_if $more (i32.eqz (i32.load8_u (i32.const 2048)))))
    (i32.store8 (i32.const 256) (i32.const 1))
    (i32.store (i32.const 260) (i32.load (i32.const 2052)))
    (i32.store (i32.const 264) (i32.load (i32.const 2056)))
    (i32.const 256)))`;

/** A component that imports wasi:filesystem (a preopen and a read), as a tool wanting the host's files would. */
async function filesystemComponent(): Promise<Uint8Array> {
  const wit = `package murmur:tool@0.1.0;
interface run { run: func(input: string) -> result<string, string>; }
world tool { import wasi:filesystem/preopens@0.2.0; export run; }
package wasi:filesystem@0.2.0 { interface preopens { read-file: func(path: string) -> string; } }
`;
  const wat = `(module
  (import "wasi:filesystem/preopens@0.2.0" "read-file" (func $read (param i32 i32 i32)))
  ${REALLOC}
  (data (i32.const 1024) "/etc/shadow")
  (func (export "murmur:tool/run@0.1.0#run") (param i32 i32) (result i32)
    (call $read (i32.const 1024) (i32.const 11) (i32.const 512))
    (i32.store8 (i32.const 256) (i32.const 0))
    (i32.store (i32.const 260) (i32.load (i32.const 512)))
    (i32.store (i32.const 264) (i32.load (i32.const 516)))
    (i32.const 256)))`;
  return componentOf(wat, wit);
}

describe('a hostile WASM tool, in the real host', () => {
  // No test here is about the time bound: 30 s, so that a loaded machine's slow worker start never turns a trap into a timeout.
  const host = new WasmHost({ maxSecs: 30, maxMemoryMib: 16 });
  const prepared = async (component: Uint8Array) => {
    const file = path.join(tempDir('component'), 'tool.wasm');
    writeFileSync(file, component);
    const digest = new ContentDigest();
    digest.bytes(component);
    return host.prepare(digest.done(), file);
  };
  const context = (extra: Partial<WasmCallContext> = {}): WasmCallContext => ({
    signal: new AbortController().signal,
    noReplyText: (secs) => `no reply came within ${secs}s`,
    ...extra,
  });

  test('a flood of empty chunks traps at 16,384: the door’s stream gets no more', async () => {
    let chunks = 0;
    const outcome = await host.call(await prepared(await componentOf(EMPTY_CHUNKS_WAT)), '{}', context({ onChunk: () => (chunks += 1) }));
    assert.equal(outcome.kind, 'trap', JSON.stringify(outcome));
    assert.equal(outcome.text, 'the WASM tool trapped: the WASM tool streamed more than 16384 chunks');
    assert.equal(chunks, 16_384);
  });

  test('one chunk past 64 KiB traps, and reaches no stream', async () => {
    let chunks = 0;
    const outcome = await host.call(await prepared(await componentOf(BIG_CHUNK_WAT)), '{}', context({ onChunk: () => (chunks += 1) }));
    assert.equal(outcome.text, 'the WASM tool trapped: the WASM tool streamed a chunk of more than 65536 bytes');
    assert.equal(chunks, 0);
  });

  test('request-input without end: 16 questions reach the task, the 17th is answered err at once', async () => {
    let asked = 0;
    const outcome = await host.call(
      await prepared(await componentOf(ASKING_WAT)),
      '{}',
      context({
        askUser: async () => {
          asked += 1;
          return { kind: 'reply', text: 'yes' };
        },
      }),
    );
    assert.equal(asked, 16);
    assert.deepEqual(outcome, {
      kind: 'err',
      text: 'the WASM tool asked for input more than 16 times in one call: this question was not put to the task',
      note: null,
    });
  });

  test('wasi:filesystem is no import of the level: refused at the pull, and given nothing even if run (no preopen, no host file)', async () => {
    const component = await filesystemComponent();
    const ready = await prepared(component);
    const fit = witFit(ready.wit);
    assert.equal(fit.fits, false);
    assert.match(fit.fits ? '' : fit.why, /it imports wasi:filesystem\/preopens@0\.2\.0, which WIT level 0\.1 does not serve/);
    const outcome = await host.call(ready, '{}', context());
    assert.equal(outcome.kind, 'trap', JSON.stringify(outcome));
    assert.doesNotMatch(outcome.text, /root:|\$6\$|\$y\$/, 'no byte of a host file');
  });
});

describe('the transpiler of a hostile component, in the real host', () => {
  const componentFile = async () => {
    const file = path.join(tempDir('component'), 'tool.wasm');
    writeFileSync(file, await componentOf(EMPTY_CHUNKS_WAT));
    return file;
  };

  // A component that makes jco's own WebAssembly allocate without end meets the same bound; a small bound stands in
  // for it here, since the memory a component makes the transpiler use is the transpiler's to choose, not the test's.
  test('its own memories are bounded: a transpile that needs more fails, naming the bound', async () => {
    const host = new WasmHost({ maxSecs: 30, maxMemoryMib: 16 }, 2 * 1024 * 1024);
    await assert.rejects(host.prepare('bounded', await componentFile()), (error: unknown) => {
      assert.ok(error instanceof ComponentUnprepared, String(error));
      assert.match(error.message, /; note: the transpiler's memory was at 2 MiB of its 2 MiB bound when it failed: a grow past the bound fails$/);
      return true;
    });
  });

  test('a bound below the transpiler’s own first memory is named as such', async () => {
    const host = new WasmHost({ maxSecs: 30, maxMemoryMib: 16 }, 1024 * 1024);
    await assert.rejects(host.prepare('too-small', await componentFile()), {
      name: 'ComponentUnprepared',
      message: /^the transpiler's own core module does not fit its memory bound \(1 MiB\): a memory of the component starts at \d+ bytes, more than the bound$/,
    });
  });

  test('within the bound a door has (512 MiB), the same component transpiles', async () => {
    assert.equal(TRANSPILER_MEMORY_BYTES, 512 * 1024 * 1024);
    const ready = await new WasmHost({ maxSecs: 30, maxMemoryMib: 16 }).prepare('default', await componentFile());
    assert.match(ready.wit, /murmur:tool\/run@0\.1\.0/);
  });
});
