import { readFile } from 'node:fs/promises';
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';
import type { AskOutcome } from '../tool-call.js';
import { capMemories } from './memory-cap.js';
import { type CoreModule, webAssembly } from './wasm-api.js';
import type { AskAnswer, CallEnd, CallMessage, PrepareAnswer, PrepareJob, RunJob } from './wasm-messages.js';

/** The bounds of a WASM tool's call (capabilities.wasm; docs/artifacts.md, "WebAssembly tools"). */
export interface WasmBounds {
  maxSecs: number;
  maxMemoryMib: number;
}

/** A component made ready to run: its WIT, and its transpiled module and core modules (memories capped). */
export interface PreparedComponent {
  wit: string;
  js: string;
  modules: Record<string, CoreModule>;
}

/** Where a call's input waits and chunks go: the running task's, through the dispatcher. */
export interface WasmCallContext {
  signal: AbortSignal;
  askUser?: (prompt: string) => Promise<AskOutcome>;
  onChunk?: (stream: 'text' | 'thinking', text: string) => void;
  /** What request-input returns as err when no reply came in time. */
  noReplyText: (waitedSecs: number) => string;
}

/** How a call ended, in the words its result gives. */
export interface WasmCallOutcome {
  kind: 'ok' | 'err' | 'trap' | 'timeout';
  text: string;
  /** The note after the fence: the memory bound, when the component reached it. */
  note: string | null;
}

const WORKER = new URL('./wasm-worker.js', import.meta.url);
/** How long transpiling one component may take, and the prepared components a session keeps. */
const PREPARE_TIMEOUT_MS = 120_000;
const PREPARED_KEPT = 32;
/** A call's chunks together, one chunk, and one get-random-bytes, at most. @unit bytes */
const MAX_CHUNK_BYTES = 4 * 1024 * 1024;
const MAX_ONE_CHUNK_BYTES = 64 * 1024;
/** A call's chunks, however small (an empty one is a frame too), at most. */
const MAX_CHUNKS = 16_384;
/** The request-input questions one call may put to the task: each wait is outside the time bound, so their number is bounded. */
const MAX_ASKS = 16;
const MAX_RANDOM_BYTES = 1024 * 1024;
const MIB = 1024 * 1024;

/** A worker's own heap: what jco's module and a call need, never what the door has. */
const CALL_HEAP = { maxOldGenerationSizeMb: 96, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 };
/** The transpiling worker's heap: what jco needs for a component as large as an artifact may be (64 MiB unpacked). */
const TRANSPILE_HEAP = { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 };
/** Each memory of the transpiler's own core modules, which the heap bound does not count. @unit bytes */
export const TRANSPILER_MEMORY_BYTES = 512 * 1024 * 1024;

/** A component that cannot be made ready (jco refused it, or the bound could not hold it). */
export class ComponentUnprepared extends Error {
  override readonly name = 'ComponentUnprepared';
}

/**
 * Runs a session's WASM tools (docs/artifacts.md, "WebAssembly tools"): each component transpiled once per digest in a
 * worker thread of its own, each call in a fresh worker bounded in time (input waits excluded) and memory, with
 * murmur:task/task wired to the task's input wait and murmur:text/chunks to its stream.
 */
export class WasmHost {
  private readonly prepared = new Map<string, Promise<PreparedComponent>>();

  constructor(
    private readonly bounds: WasmBounds,
    private readonly transpilerMemoryBytes = TRANSPILER_MEMORY_BYTES,
  ) {}

  /** The component's WIT and transpiled form, made once per digest; the door's thread only compiles the core modules. */
  prepare(digest: string, componentFile: string): Promise<PreparedComponent> {
    let ready = this.prepared.get(digest);
    if (ready === undefined) {
      ready = this.transpile(componentFile);
      ready.catch(() => this.prepared.delete(digest));
      this.prepared.set(digest, ready);
      if (this.prepared.size > PREPARED_KEPT) this.prepared.delete(this.prepared.keys().next().value!);
    }
    return ready;
  }

  private async transpile(componentFile: string): Promise<PreparedComponent> {
    const component = new Uint8Array(await readFile(componentFile));
    const job: PrepareJob = { job: 'prepare', component, maxTranspilerMemoryBytes: this.transpilerMemoryBytes };
    const worker = new Worker(WORKER, { workerData: job, env: {}, stdout: true, stderr: true, resourceLimits: TRANSPILE_HEAP });
    let timer: NodeJS.Timeout | undefined;
    const answer = await new Promise<PrepareAnswer>((resolve) => {
      timer = setTimeout(() => resolve({ kind: 'failed', message: `transpiling took longer than ${PREPARE_TIMEOUT_MS / 1000} s` }), PREPARE_TIMEOUT_MS);
      worker.once('message', (message: PrepareAnswer) => resolve(message));
      worker.once('error', (error) => resolve({ kind: 'failed', message: error.message }));
      worker.once('exit', () => resolve({ kind: 'failed', message: 'the transpiling thread ended without an answer' }));
    }).finally(() => {
      clearTimeout(timer);
      void worker.terminate();
    });
    if (answer.kind === 'failed') throw new ComponentUnprepared(answer.message);
    const modules: Record<string, CoreModule> = {};
    for (const [name, bytes] of Object.entries(answer.cores)) {
      try {
        modules[name] = await webAssembly.compile(capMemories(bytes, this.bounds.maxMemoryMib * MIB));
      } catch (error) {
        throw new ComponentUnprepared(error instanceof Error ? error.message : String(error));
      }
    }
    return { wit: answer.wit, js: answer.js, modules };
  }

  /** One call: `input` (JSON) to the component's run, in a fresh worker; ends by its result, a trap, the time bound or the task's signal. */
  async call(component: PreparedComponent, input: string, ctx: WasmCallContext): Promise<WasmCallOutcome> {
    if (ctx.signal.aborted) throw ctx.signal.reason;
    const { port1: door, port2: tool } = new MessageChannel();
    const wake = new SharedArrayBuffer(4);
    const job: RunJob = {
      job: 'run',
      js: component.js,
      modules: component.modules,
      input,
      port: tool,
      wake,
      maxChunkBytes: MAX_CHUNK_BYTES,
      maxOneChunkBytes: MAX_ONE_CHUNK_BYTES,
      maxChunks: MAX_CHUNKS,
      maxRandomBytes: MAX_RANDOM_BYTES,
    };
    const worker = new Worker(WORKER, { workerData: job, transferList: [tool], env: {}, stdout: true, stderr: true, resourceLimits: CALL_HEAP });
    const limitMs = this.bounds.maxSecs * 1000;
    let usedMs = 0;
    let asks = 0;
    let runningSince = Date.now();
    let timer: NodeJS.Timeout | undefined;
    try {
      return await new Promise<WasmCallOutcome>((resolve, reject) => {
        const arm = () => {
          runningSince = Date.now();
          timer = setTimeout(
            () =>
              resolve({ kind: 'timeout', text: `the WASM tool ran past capabilities.wasm.max_secs (${this.bounds.maxSecs} s) and was stopped`, note: null }),
            limitMs - usedMs,
          );
        };
        const pause = () => {
          clearTimeout(timer);
          usedMs += Date.now() - runningSince;
        };
        const onAbort = () => reject(ctx.signal.reason);
        ctx.signal.addEventListener('abort', onAbort, { once: true });
        worker.once('exit', () => ctx.signal.removeEventListener('abort', onAbort));
        worker.once('error', (error) => resolve({ kind: 'trap', text: `the WASM tool trapped: ${error.message}`, note: null }));
        const onMessage = (message: CallMessage) => {
          if (message.kind === 'chunk') ctx.onChunk?.(message.stream, message.text);
          else if (message.kind === 'ask') {
            pause();
            asks += 1;
            const answering: Promise<AskAnswer> =
              asks > MAX_ASKS
                ? Promise.resolve({
                    kind: 'none',
                    text: `the WASM tool asked for input more than ${MAX_ASKS} times in one call: this question was not put to the task`,
                  })
                : this.answer(message.prompt, ctx);
            void answering.then((answer) => {
              door.postMessage(answer);
              const flag = new Int32Array(wake);
              Atomics.store(flag, 0, 1);
              Atomics.notify(flag, 0);
              arm();
            }, reject);
          } else resolve(this.outcome(message));
        };
        door.on('message', onMessage);
        // A thread's exit may be told before the messages it posted last: those are read first, its result among them.
        worker.once('exit', (code) => {
          for (let left = receiveMessageOnPort(door); left !== undefined; left = receiveMessageOnPort(door)) onMessage(left.message as CallMessage);
          resolve({ kind: 'trap', text: `the WASM tool's thread ended (${code}) without a result`, note: null });
        });
        arm();
      });
    } finally {
      clearTimeout(timer);
      door.close();
      await worker.terminate();
    }
  }

  private async answer(prompt: string, ctx: WasmCallContext): Promise<AskAnswer> {
    if (ctx.askUser === undefined) return { kind: 'none', text: 'request-input is answered only while a task runs' };
    const outcome = await ctx.askUser(prompt);
    return outcome.kind === 'reply' ? { kind: 'reply', text: outcome.text } : { kind: 'none', text: ctx.noReplyText(outcome.waitedSecs) };
  }

  /**
   * A trap with the component's memory past half its bound says how much it held: a grow past the bound fails, and a
   * component that allocates without end traps there (which grow failed is not known to the host, so it is not claimed).
   */
  private outcome(end: CallEnd): WasmCallOutcome {
    if (end.outcome !== 'trap') return { kind: end.outcome, text: end.text, note: null };
    const bound = this.bounds.maxMemoryMib * MIB;
    const note =
      end.memoryBytes * 2 >= bound
        ? `note: the WASM tool's memory was at ${Math.round(end.memoryBytes / MIB)} MiB of capabilities.wasm.max_memory_mib (${this.bounds.maxMemoryMib} MiB) when it trapped: a grow past the bound fails`
        : null;
    return { kind: 'trap', text: `the WASM tool trapped: ${end.text}`, note };
  }
}
