import type { JsonValue, QuotaWindowFrameFields } from '@murmur/protocol';
import type { Usage } from '../driver.js';

/**
 * What a harness reports, whichever harness: each harness's reader (claude-code-events.ts, codex-events.ts) turns
 * its JSON lines into these, and the run (harness-run.ts) turns these into the frames and records of the http loop.
 */
export type HarnessEvent =
  /** The harness names the session it runs in (a new one, or the one it resumed). */
  | { kind: 'session'; id: string }
  | { kind: 'turn-start' }
  | { kind: 'text'; text: string }
  | { kind: 'thinking'; text: string }
  /** A tool of the harness's own starts (never a tool-server call: the tool server reports those itself). */
  | { kind: 'tool-start'; id: string; name: string; input: JsonValue }
  | { kind: 'tool-end'; id: string; output: string; isError: boolean; exitCode: number | null }
  | { kind: 'turn-end'; usage: Usage | null; stop: string; responseId?: string; responseModel?: string }
  | { kind: 'quota'; windows: QuotaWindowFrameFields[] }
  | { kind: 'suggestion'; text: string }
  /** The run answered: its answer's text. */
  | { kind: 'answer'; text: string }
  /** The run failed: the harness's own words; `maxTurns` when it stopped at its turn cap, `resumeRefused` when it could not resume. */
  | { kind: 'failure'; message: string; maxTurns?: true; resumeRefused?: true };

/** One harness's reader of its JSON lines; stateful across the lines of one run. */
export interface HarnessEventReader {
  /** The events one line (already a JSON object) carries; unknown kinds carry none. */
  read(line: Record<string, unknown>): HarnessEvent[];
}

/** A string member, or undefined. */
export const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** A finite number member, or undefined. */
export const num = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/**
 * A token count a harness reports: a whole number from 0 up, else undefined (not reported). What a run prints is the
 * sandbox's word (docs/harness.md, "The boundary"): a negative or fractional count would take from the session's and
 * the machine's spend.
 */
export const count = (value: unknown): number | undefined => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined);

/** An object member, or undefined. */
export const obj = (value: unknown): Record<string, unknown> | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

/** A unix time in seconds as RFC 3339 UTC to the second (seed 004's quota `resets_at`). */
export const isoSeconds = (unixSecs: number): string => new Date(Math.round(unixSecs) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
