import type { ProcessRegistry } from '../../tools/process-registry.js';
import { CommandProcess } from '../../tools/command-process.js';
import type { CommandSandbox } from '../../tools/sandbox/sandbox.js';
import type { WorkdirBound } from '../../tools/sandbox/workdir-bound.js';
import type { HarnessEvent } from './harness-events.js';
import { LineSplitter, LineTooLongError, MAX_LINE_BYTES } from './line-splitter.js';
import type { HarnessAdapter, RunPlan } from './run-plan.js';
import { TOOLS_TOKEN_VARIABLE } from './run-plan.js';

/** The last of a harness's standard error kept, for a failure's message. @unit bytes */
const STDERR_TAIL_BYTES = 16 * 1024;

/** How often a run checks whether its harness went quiet. @unit ms */
const IDLE_CHECK_MS = 1000;

/** How a run ended, before the loop decides what the task does next. */
export type RunOutcome =
  | { kind: 'answered'; text: string }
  | { kind: 'failed'; message: string; resumeRefused?: true; maxTurns?: true }
  /** The runtime stopped the harness (the spend ceilings): `message` is the task's failure. */
  | { kind: 'stopped'; message: string };

/** What a run is given: where it runs, what it reads, and the loop's side of its events. */
export interface HarnessRunInput {
  plan: RunPlan;
  adapter: HarnessAdapter;
  sandbox: CommandSandbox;
  /** The commands' environment (docs/sandbox.md), which the harness's own adds to. */
  env: Record<string, string>;
  /** The harness's executable and home as the sandbox shows them. */
  executable: string;
  home: string;
  key: string | null;
  toolToken: string;
  prompt: string;
  taskId: string;
  signal: AbortSignal;
  processes: ProcessRegistry;
  /** Whether a tool-server call of this run is in flight: the harness is waiting on the runtime then, not hung. */
  toolCallInFlight: () => boolean;
  /** Each event as it comes; a message returned stops the run (the spend ceilings). */
  onEvent: (event: HarnessEvent) => string | null;
  /**
   * The folders the run writes that are measured while it runs (the workdir, the harness's home), each with its
   * bound and how a failure names it: past one, the run is stopped and the task fails (docs/harness.md, "The boundary").
   */
  bounds: readonly { bound: WorkdirBound; what: string }[];
}

/** A run's end as `harness_end` records it, beside the outcome. */
export interface RunEnd {
  outcome: RunOutcome;
  exitCode: number | null;
}

/** The first `n` characters of the harness's own words, for a status message. */
const cut = (text: string, n = 500) => (text.length > n ? `${text.slice(0, n)}…` : text);

/**
 * One run of a harness (docs/harness.md, "How a task runs"): one process in the session's sandbox, its prompt on
 * standard input, its standard output read as bounded JSON lines and turned into events, recorded in processes/ like
 * every command, and its sandbox ended when it ends, so nothing it started outlives it. What it prints is untrusted: a
 * line that is no JSON object, a line past the bound, or silence past the idle timeout stops it, and the task fails.
 */
export async function runHarness(input: HarnessRunInput): Promise<RunEnd> {
  const { plan, adapter, sandbox, signal } = input;
  const line = sandbox.commandLine(input.executable, adapter.args(plan), plan.workDir);
  const env = { ...input.env, ...adapter.env(plan, input.home, input.key), [TOOLS_TOKEN_VARIABLE]: input.toolToken };
  input.processes.ensureReaper();
  const command = new CommandProcess(line, { cwd: plan.workDir, env, stdin: true });
  const { child, pgid } = command;
  if (pgid !== undefined)
    input.processes.track(pgid, { binary: adapter.name, command: `${adapter.name} run`, taskId: input.taskId, workId: null, startedAtMs: Date.now() });
  child.stdin?.on('error', () => undefined);
  child.stdin?.end(input.prompt);

  const reader = adapter.reader();
  const splitter = new LineSplitter();
  let answer: string | null = null;
  let failure: Extract<RunOutcome, { kind: 'failed' }> | null = null;
  let ended: RunOutcome | null = null;
  let stderr = '';
  let lineNumber = 0;
  let lastOutputMs = Date.now();

  const stop = (outcome: RunOutcome) => {
    ended ??= outcome;
    void command.end();
  };
  const garbage = (text: string) =>
    stop({ kind: 'failed', message: `${adapter.name} printed something that is not its JSON stream (line ${lineNumber}: ${JSON.stringify(cut(text, 200))})` });
  const take = (text: string) => {
    lineNumber += 1;
    const trimmed = text.trim();
    if (trimmed === '' || ended !== null) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch {
      garbage(trimmed);
      return;
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      garbage(trimmed);
      return;
    }
    for (const event of reader.read(parsed as Record<string, unknown>)) {
      if (event.kind === 'answer') answer = event.text;
      else if (event.kind === 'failure')
        failure = {
          kind: 'failed',
          message: event.message,
          ...(event.maxTurns ? { maxTurns: true } : {}),
          ...(event.resumeRefused ? { resumeRefused: true } : {}),
        };
      else {
        const stopped = input.onEvent(event);
        if (stopped !== null) {
          stop({ kind: 'stopped', message: stopped });
          return;
        }
      }
    }
  };
  child.stdout!.on('data', (chunk: Buffer) => {
    lastOutputMs = Date.now();
    if (ended !== null) return;
    try {
      for (const text of splitter.push(chunk)) take(text);
    } catch (error) {
      if (!(error instanceof LineTooLongError)) throw error;
      stop({ kind: 'failed', message: `${adapter.name} printed a line of more than ${MAX_LINE_BYTES} bytes` });
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES);
  });
  const idleSecs = Math.round(plan.spec.idleTimeoutMs / 1000);
  const idle = setInterval(
    () => {
      if (input.toolCallInFlight()) lastOutputMs = Date.now();
      else if (Date.now() - lastOutputMs > plan.spec.idleTimeoutMs) stop({ kind: 'failed', message: `${adapter.name} printed nothing for ${idleSecs} s` });
    },
    Math.min(IDLE_CHECK_MS, plan.spec.idleTimeoutMs),
  );
  const watched = input.bounds.map(({ bound, what }) =>
    bound.watch(() => stop({ kind: 'failed', message: `${what} grew past capabilities.shell.max_workdir_mib (${bound.maxMib} MiB): the door ended the run` })),
  );
  const onAbort = () => void command.end();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    const spawned = await Promise.race([command.exited, command.spawnError]);
    if (spawned instanceof Error) return { outcome: { kind: 'failed', message: `${adapter.name} could not start: ${spawned.message}` }, exitCode: null };
    await command.closed;
    const rest = ended === null ? splitter.end() : null;
    if (rest !== null) take(rest);
    const exitCode = spawned.code;
    if (ended !== null) return { outcome: ended, exitCode };
    if (answer !== null) return { outcome: { kind: 'answered', text: answer }, exitCode };
    if (failure !== null) return { outcome: failure, exitCode };
    if (adapter.resumeRefused(stderr)) return { outcome: { kind: 'failed', message: lastLine(stderr), resumeRefused: true }, exitCode };
    const said = reader.lastWords ?? lastLine(stderr);
    return {
      outcome: { kind: 'failed', message: `${adapter.name} exited ${exitCode ?? 'on a signal'} before it answered${said === '' ? '' : `: ${cut(said)}`}` },
      exitCode,
    };
  } finally {
    clearInterval(idle);
    for (const watch of watched) watch.done();
    signal.removeEventListener('abort', onAbort);
    // A run ends with its sandbox: whatever the harness left running goes with it (docs/harness.md).
    await command.end();
    if (pgid !== undefined) input.processes.release(pgid);
  }
}

/** The last non-blank line of a harness's standard error. */
function lastLine(text: string): string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  return lines.at(-1) ?? '';
}
