/**
 * The part of the WebAssembly JavaScript API the WASM host uses. @types/node declares none of it (it comes with the DOM
 * library, which the door does not load), so it is typed here, as narrowly as it is used.
 */

/** A compiled core module: opaque here, and posted to a worker as it is (structured clone shares the compiled code). */
export interface CoreModule {
  readonly __coreModule?: never;
}

export interface CoreMemory {
  readonly buffer: ArrayBuffer;
}

export interface CoreInstance {
  readonly exports: Record<string, unknown>;
}

export type CoreImports = Record<string, Record<string, unknown>>;

interface WebAssemblyApi {
  compile(bytes: Uint8Array): Promise<CoreModule>;
  instantiate(module: CoreModule, imports: CoreImports): Promise<CoreInstance>;
  Memory: abstract new (...args: never[]) => CoreMemory;
}

export const webAssembly = (globalThis as unknown as { WebAssembly: WebAssemblyApi }).WebAssembly;
