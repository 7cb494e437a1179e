/**
 * What the door and a WASM tool's worker thread say to each other (wasm-worker.ts): the worker's data for each of its
 * two jobs, and the messages of a call. Types only, shared by both sides.
 */
import type { MessagePort } from 'node:worker_threads';
import type { CoreModule } from './wasm-api.js';

/** Transpile a component: its WIT (for the level check) and the JavaScript and core modules that run it. */
export interface PrepareJob {
  job: 'prepare';
  component: Uint8Array;
  /** The bound on each memory of the transpiler's own core modules (jco's wasm-tools and bindgen). @unit bytes */
  maxTranspilerMemoryBytes: number;
}

/** Run one call of a prepared component. */
export interface RunJob {
  job: 'run';
  /** The transpiled instantiation module. */
  js: string;
  /** Its core modules by file name, compiled (each memory's maximum already lowered to the bound). */
  modules: Record<string, CoreModule>;
  input: string;
  /** Where the call's messages go, and where request-input's answer comes back. */
  port: MessagePort;
  /** One Int32: the worker waits on it while the door answers request-input, and the door sets it to 1 when it has. */
  wake: SharedArrayBuffer;
  /** The most bytes of chunks a call may stream, of one chunk, the most chunks, and the most random bytes one get-random-bytes may ask. */
  maxChunkBytes: number;
  maxOneChunkBytes: number;
  maxChunks: number;
  maxRandomBytes: number;
}

export type WorkerJob = PrepareJob | RunJob;

export type PrepareAnswer = { kind: 'prepared'; wit: string; js: string; cores: Record<string, Uint8Array> } | { kind: 'failed'; message: string };

/** How `run` ended: its ok or err text, or a trap (the engine's message), and the largest memory it had. */
export interface CallEnd {
  kind: 'done';
  outcome: 'ok' | 'err' | 'trap';
  text: string;
  memoryBytes: number;
}

export type CallMessage = { kind: 'ask'; prompt: string } | { kind: 'chunk'; stream: 'text' | 'thinking'; text: string } | CallEnd;

/** The door's answer to request-input: the reply, or why there is none (the input timeout). */
export type AskAnswer = { kind: 'reply'; text: string } | { kind: 'none'; text: string };
