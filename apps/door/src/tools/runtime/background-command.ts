import { readFileSync, statSync } from 'node:fs';
import type { Manifest } from '../../manifest/manifest.schema.js';
import type { BackgroundCommand, BackgroundCommands } from '../background-commands.js';
import { killProcessGroup } from '../process-group.js';
import { ToolInputError } from '../tool-call.js';

const SHOWN_BYTES = 16384;
const MAX_WAIT_SECS = 600;

/** Granted by an inference: block, a non-empty capabilities.shell.allow and a lifecycle.shell_grace_secs (seed 004). */
export function backgroundCommandGranted(manifest: Manifest): boolean {
  return manifest.inference !== undefined && manifest.capabilities.shell.allow.length > 0 && manifest.lifecycle.shell_grace_secs !== undefined;
}

/** Reports on, waits for or stops a command that moved to the background (seed 004, background-command). */
export async function runBackgroundCommand(input: Record<string, unknown>, commands: BackgroundCommands, signal: AbortSignal): Promise<string> {
  const { operation, work_id: workId, wait_secs: waitSecs } = input;
  if (workId === undefined) throw new ToolInputError('work_id is required: the wrk_<hex> id a shell call returned');
  if (typeof workId !== 'string' || !/^wrk_[0-9a-f]+$/.test(workId)) throw new ToolInputError(`work_id ${JSON.stringify(workId)} is not of the form wrk_<hex>`);
  if (operation !== 'status' && operation !== 'wait' && operation !== 'stop') {
    throw new ToolInputError(`operation ${JSON.stringify(operation ?? null)} is not one of status, wait, stop`);
  }
  if (waitSecs !== undefined && (typeof waitSecs !== 'number' || !Number.isInteger(waitSecs) || waitSecs < 0)) {
    throw new ToolInputError(`wait_secs ${JSON.stringify(waitSecs)} is not a whole number of seconds`);
  }
  const command = commands.get(workId);
  if (!command) throw new ToolInputError(`no background command with work id \`${workId}\` in this session`);
  const began = Date.now();
  if (operation === 'wait' && command.exitedAtMs === null) {
    const secs = Math.min(waitSecs ?? MAX_WAIT_SECS, MAX_WAIT_SECS);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, secs * 1000);
      void command.exit.then(() => {
        clearTimeout(timer);
        // exitedAtMs is set by the registry's own exit handler, which was attached first.
        setImmediate(resolve);
      });
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
  if (operation === 'stop' && command.exitedAtMs === null) {
    command.stopped = true;
    await killProcessGroup(command.child, command.exit);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return describe(command, operation === 'wait' ? Math.floor((Date.now() - began) / 1000) : null);
}

function describe(command: BackgroundCommand, waitedSecs: number | null): string {
  const ended = command.exitedAtMs !== null;
  const state = !ended ? 'running' : command.stopped ? 'stopped' : 'exited';
  const elapsed = Math.floor(((command.exitedAtMs ?? Date.now()) - command.startedAtMs) / 1000);
  let bytes = 0;
  let output = '';
  try {
    bytes = statSync(command.logFile).size;
    const all = readFileSync(command.logFile);
    output = all.subarray(Math.max(0, all.length - SHOWN_BYTES)).toString('utf8');
  } catch {
    // no output yet
  }
  const lines = [`work_id: ${command.workId}`, `state: ${state}`, `elapsed_secs: ${elapsed}`];
  if (waitedSecs !== null) lines.push(`waited_secs: ${waitedSecs}`);
  if (ended) lines.push(`exit_code: ${command.exitCode}`, `status: ${command.exitCode === 0 ? 'ok' : 'error'}`);
  lines.push(`output: ${command.logFile}`, `output_bytes: ${bytes}`, `output_shown: ${bytes > SHOWN_BYTES ? `last ${SHOWN_BYTES} bytes` : 'all'}`);
  return `${lines.join('\n')}\n\n${output}`;
}
