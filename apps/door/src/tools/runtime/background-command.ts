import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { JsonObject } from '@murmur/protocol';
import type { Manifest } from '../../manifest/manifest.schema.js';
import type { BackgroundCommand, BackgroundCommands } from '../background-commands.js';
import type { TraceWriter } from '../../records/trace-writer.js';
import { type RuntimeToolAnswer, type ToolCallContext, ToolInputError } from '../tool-call.js';

const SHOWN_BYTES = 16384;

/** Seed 004's input schema for background-command, as staged and validated. */
export const BACKGROUND_COMMAND_SCHEMA: JsonObject = {
  type: 'object',
  properties: {
    operation: { type: 'string', enum: ['status', 'wait', 'stop'] },
    work_id: { type: 'string' },
    wait_secs: { type: 'integer', minimum: 0 },
  },
  required: ['operation', 'work_id'],
};

export const BACKGROUND_COMMAND_DESCRIPTION =
  'Reports on, waits for or stops a shell command that moved to the background, by the work_id (wrk_<hex>) its shell call returned: status returns at once; wait returns when it exits or after wait_secs (default and most 600); stop ends its process group.';
const MAX_WAIT_SECS = 600;

/** Granted by an inference: block, a non-empty capabilities.shell.allow and a lifecycle.shell_grace_secs (seed 004). */
export function backgroundCommandGranted(manifest: Manifest): boolean {
  return manifest.inference !== undefined && manifest.capabilities.shell.allow.length > 0 && manifest.lifecycle.shell_grace_secs !== undefined;
}

/** Reports on, waits for or stops a command that moved to the background (seed 004, background-command). */
export async function runBackgroundCommand(
  input: Record<string, unknown>,
  deps: { commands: BackgroundCommands; trace: TraceWriter },
  ctx: Pick<ToolCallContext, 'taskId' | 'signal'>,
): Promise<string | RuntimeToolAnswer> {
  const { commands, trace } = deps;
  const { signal } = ctx;
  const { operation, work_id: workId, wait_secs: waitSecs } = input;
  // The dispatcher checked the input against BACKGROUND_COMMAND_SCHEMA; the form of a work id is the tool's own rule.
  if (typeof workId !== 'string' || !/^wrk_[0-9a-f]+$/.test(workId)) throw new ToolInputError(`work_id ${JSON.stringify(workId)} is not of the form wrk_<hex>`);
  if (operation !== 'status' && operation !== 'wait' && operation !== 'stop')
    throw new ToolInputError(`operation ${JSON.stringify(operation ?? null)} is not one of status, wait, stop`);
  if (waitSecs !== undefined && (typeof waitSecs !== 'number' || !Number.isInteger(waitSecs) || waitSecs < 0))
    throw new ToolInputError(`wait_secs ${JSON.stringify(waitSecs)} is not a whole number`);
  const command = commands.get(workId);
  if (!command) throw new ToolInputError(`no background command with work id \`${workId}\` in this session`);
  const began = Date.now();
  let canceledWaiting = false;
  if (operation === 'wait' && command.exitedAtMs === null) {
    const secs = Math.min(waitSecs ?? MAX_WAIT_SECS, MAX_WAIT_SECS);
    command.waiters += 1;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, secs * 1000);
      void command.exit.then(() => {
        clearTimeout(timer);
        // exitedAtMs is set by the registry's own exit handler, which was attached first.
        setImmediate(resolve);
      });
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        canceledWaiting = true;
        resolve();
      });
    });
    command.waiters -= 1;
  }
  if (operation === 'stop' && command.exitedAtMs === null) {
    await commands.stop(command);
    // The exit is recorded once the log is complete; a command whose last output is still draining is waited for.
    await Promise.race([command.exit.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
    await new Promise((resolve) => setImmediate(resolve));
  }
  // This answer reports the exit: no completion task will report it again.
  if (command.exitedAtMs !== null) command.exitReported = true;
  const waitedSecs = operation === 'wait' ? Math.floor((Date.now() - began) / 1000) : null;
  trace.write('background_command', {
    task_id: ctx.taskId,
    work_id: command.workId,
    operation,
    state: stateOf(command),
    exit_code: command.exitCode,
    ...(waitedSecs !== null ? { waited_secs: waitedSecs } : {}),
    // A cancel of the task ends the wait at once (seed 004): recorded as the phase the task was canceled in.
    ...(canceledWaiting ? { phase: 'background_wait' } : {}),
  });
  const data = describeBackgroundCommand(command, waitedSecs);
  // A resource limit that ended it goes after the untrusted fence, as on a foreground shell result (seed 004).
  return command.limit === null ? data : { data, note: command.limit };
}

function stateOf(command: BackgroundCommand): 'running' | 'exited' | 'stopped' {
  if (command.exitedAtMs === null) return 'running';
  return command.stopped ? 'stopped' : 'exited';
}

/** The last `max` bytes of a log and its size, read without loading the whole file. */
function logTail(file: string, max: number): { bytes: number; tail: string } {
  let fd: number | null = null;
  try {
    fd = openSync(file, 'r');
    const bytes = fstatSync(fd).size;
    const length = Math.min(bytes, max);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, bytes - length);
    return { bytes, tail: buffer.toString('utf8') };
  } catch {
    return { bytes: 0, tail: '' };
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/** The text every operation answers, and a completion task reports (seed 004, background-command). */
export function describeBackgroundCommand(command: BackgroundCommand, waitedSecs: number | null): string {
  const ended = command.exitedAtMs !== null;
  const elapsed = Math.floor(((command.exitedAtMs ?? Date.now()) - command.startedAtMs) / 1000);
  const { bytes, tail } = logTail(command.logFile, SHOWN_BYTES);
  const lines = [`work_id: ${command.workId}`, `state: ${stateOf(command)}`, `elapsed_secs: ${elapsed}`];
  if (waitedSecs !== null) lines.push(`waited_secs: ${waitedSecs}`);
  if (ended) lines.push(`exit_code: ${command.exitCode}`, `status: ${command.exitCode === 0 && command.limit === null && !command.waitError ? 'ok' : 'error'}`);
  if (command.waitError) lines.push(`wait_error: ${command.waitError}`);
  lines.push(`output: ${command.logFile}`, `output_bytes: ${bytes}`, `output_shown: ${bytes > SHOWN_BYTES ? `last ${SHOWN_BYTES} bytes` : 'all'}`);
  return `${lines.join('\n')}\n\n${tail}`;
}
