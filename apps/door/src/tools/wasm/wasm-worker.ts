/**
 * A WASM tool's worker thread (docs/artifacts.md, "WebAssembly tools"): either transpiles a component (its WIT, and
 * the JavaScript and core modules jco makes of it), or runs one call of it with exactly the imports of WIT level 0.1 —
 * murmur:task/task, murmur:text/chunks, wasi:random/random, wasi:clocks/wall-clock — and nothing else of the host.
 * A thread of its own, so the door can stop a call that loops (Worker.terminate) and bound its heap; its imports are
 * synchronous, so request-input blocks here (Atomics.wait) while the door waits for the task's reply.
 */
import { randomBytes } from 'node:crypto';
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { capMemories } from './memory-cap.js';
import { type CoreImports, type CoreInstance, type CoreMemory, type CoreModule, webAssembly } from './wasm-api.js';
import type { AskAnswer, CallMessage, PrepareAnswer, PrepareJob, RunJob, WorkerJob } from './wasm-messages.js';

/** jco's transpile options: instantiation by the door (imports passed in), plain errors, no TypeScript, no inline wasm. */
const TRANSPILE = {
  name: 'tool',
  instantiation: { tag: 'async' },
  noComponentErrorWrapping: true,
  base64Cutoff: 0,
  emitTypescriptDeclarations: false,
  minify: false,
} as const;

const MIB = 1024 * 1024;

/**
 * jco's own core modules (wasm-tools and the bindgen, WebAssembly themselves) compiled with each memory's maximum
 * lowered to `maxBytes`, as a tool's are: their memories are outside the worker's heap bound, and a component made to
 * blow up the transpiler would otherwise grow them to 4 GiB in the door's process. Patched before jco is loaded (it
 * keeps `WebAssembly.instantiate` as it finds it); returns the size of the largest memory its instances made so far.
 */
function boundTranspiler(maxBytes: number): () => number {
  const api = webAssembly as { compile: typeof webAssembly.compile; instantiate: typeof webAssembly.instantiate };
  const compile = api.compile.bind(webAssembly);
  const instantiate = api.instantiate.bind(webAssembly);
  const memories: CoreMemory[] = [];
  api.compile = (bytes) => {
    try {
      return compile(capMemories(new Uint8Array(bytes), maxBytes));
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      return Promise.reject(new Error(`the transpiler's own core module does not fit its memory bound (${Math.round(maxBytes / MIB)} MiB): ${why}`));
    }
  };
  api.instantiate = async (module, imports) => {
    const made = (await instantiate(module, imports)) as CoreInstance & { instance?: CoreInstance };
    for (const value of Object.values((made.instance ?? made).exports)) if (value instanceof webAssembly.Memory) memories.push(value);
    return made;
  };
  return () => memories.reduce((most, m) => Math.max(most, m.buffer.byteLength), 0);
}

async function prepare(job: PrepareJob): Promise<PrepareAnswer> {
  const largest = boundTranspiler(job.maxTranspilerMemoryBytes);
  try {
    return await transpile(job);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const at = largest();
    // Which allocation failed the worker cannot see; past half the bound, the bound is named as the likely cause.
    if (at * 2 <= job.maxTranspilerMemoryBytes) return { kind: 'failed', message };
    const mib = (bytes: number) => Math.round(bytes / MIB);
    return {
      kind: 'failed',
      message: `${message}; note: the transpiler's memory was at ${mib(at)} MiB of its ${mib(job.maxTranspilerMemoryBytes)} MiB bound when it failed: a grow past the bound fails`,
    };
  }
}

async function transpile(job: PrepareJob): Promise<PrepareAnswer> {
  const tools = await import('@bytecodealliance/jco-transpile/wasm-tools');
  const wit = await tools.componentWit(job.component);
  const { transpileBytes } = await import('@bytecodealliance/jco-transpile');
  const out = await transpileBytes(job.component, TRANSPILE);
  const cores: Record<string, Uint8Array> = {};
  let js = '';
  for (const [name, bytes] of Object.entries(out.files)) {
    if (name.endsWith('.wasm')) cores[name] = bytes;
    else if (name === 'tool.js') js = Buffer.from(bytes).toString('utf8');
  }
  return { kind: 'prepared', wit, js, cores };
}

/** The instantiation function jco's module exports. */
type Instantiate = (
  getCoreModule: (name: string) => CoreModule,
  imports: CoreImports,
  instantiateCore: (module: CoreModule, imports?: CoreImports) => Promise<CoreInstance>,
) => Promise<Record<string, { run: (input: string) => string }>>;

async function run(job: RunJob): Promise<void> {
  const { port } = job;
  const send = (message: CallMessage) => port.postMessage(message);
  const wake = new Int32Array(job.wake);
  const memories: CoreMemory[] = [];
  const largestMemory = () => memories.reduce((most, m) => Math.max(most, m.buffer.byteLength), 0);
  let chunkBytes = 0;
  let chunks = 0;
  const chunk = (stream: 'text' | 'thinking') => (text: string) => {
    const bytes = Buffer.byteLength(text);
    chunkBytes += bytes;
    chunks += 1;
    if (bytes > job.maxOneChunkBytes) throw new Error(`the WASM tool streamed a chunk of more than ${job.maxOneChunkBytes} bytes`);
    if (chunkBytes > job.maxChunkBytes) throw new Error(`the WASM tool streamed more than ${job.maxChunkBytes} bytes of chunks`);
    if (chunks > job.maxChunks) throw new Error(`the WASM tool streamed more than ${job.maxChunks} chunks`);
    send({ kind: 'chunk', stream, text });
  };
  const imports = {
    'murmur:task/task': {
      requestInput(prompt: string): string {
        Atomics.store(wake, 0, 0);
        send({ kind: 'ask', prompt });
        Atomics.wait(wake, 0, 0);
        const answer = receiveMessageOnPort(port)?.message as AskAnswer | undefined;
        if (answer?.kind === 'reply') return answer.text;
        // A result's err: jco lowers a thrown value as err when the import returns result<_, string>.
        throw answer?.text ?? 'no reply came';
      },
    },
    'murmur:text/chunks': { text: chunk('text'), thinking: chunk('thinking') },
    'wasi:random/random': {
      getRandomBytes(length: bigint): Uint8Array {
        if (length > BigInt(job.maxRandomBytes)) throw new Error(`get-random-bytes asked for ${length} bytes; at most ${job.maxRandomBytes}`);
        return new Uint8Array(randomBytes(Number(length)));
      },
      getRandomU64: (): bigint => randomBytes(8).readBigUInt64LE(),
    },
    'wasi:clocks/wall-clock': {
      now() {
        const ms = Date.now();
        return { seconds: BigInt(Math.floor(ms / 1000)), nanoseconds: (ms % 1000) * 1_000_000 };
      },
      resolution: () => ({ seconds: 0n, nanoseconds: 1_000_000 }),
    },
  };
  const instantiateCore = async (module: CoreModule, coreImports?: CoreImports) => {
    const instance = await webAssembly.instantiate(module, coreImports ?? {});
    for (const value of Object.values(instance.exports)) if (value instanceof webAssembly.Memory) memories.push(value);
    return instance;
  };
  const { instantiate } = (await import(`data:text/javascript;base64,${Buffer.from(job.js).toString('base64')}`)) as { instantiate: Instantiate };
  let end: CallMessage;
  try {
    const exports = await instantiate((name) => job.modules[name]!, imports, instantiateCore);
    const tool = Object.entries(exports).find(([name]) => name.startsWith('murmur:tool/run@'))?.[1];
    if (!tool) throw new Error('the component exports no murmur:tool/run');
    end = { kind: 'done', outcome: 'ok', text: String(tool.run(job.input)), memoryBytes: largestMemory() };
  } catch (error) {
    // jco throws an err result's payload itself (noComponentErrorWrapping); anything else is a trap or the host's refusal.
    end =
      typeof error === 'string'
        ? { kind: 'done', outcome: 'err', text: error, memoryBytes: largestMemory() }
        : { kind: 'done', outcome: 'trap', text: error instanceof Error ? error.message : String(error), memoryBytes: largestMemory() };
  }
  send(end);
}

const job = workerData as WorkerJob;
if (job.job === 'prepare') void prepare(job).then((answer) => parentPort?.postMessage(answer));
else void run(job);
