import { constants } from 'node:os';

/**
 * A finished process's exit code as a shell reports it: its own code, or 128 + the number of the signal that ended
 * it (SIGKILL → 137, SIGSEGV → 139, SIGABRT → 134), from the platform's own signal table.
 */
export function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number | null {
  if (code !== null) return code;
  if (signal === null) return null;
  const number = constants.signals[signal];
  return number === undefined ? null : 128 + number;
}
