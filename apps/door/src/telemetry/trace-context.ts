import { headerLines } from '@murmur/protocol';

/** The W3C Trace Context header (https://www.w3.org/TR/trace-context/#traceparent-header). */
export const TRACEPARENT_HEADER = 'traceparent';

/**
 * Version 00: a 32-hex trace id and a 16-hex parent id, neither all zeros, and 2-hex flags (Trace Context §3.2.2).
 * Lower-case only, as the spec requires; anything else is ignored, never repaired.
 */
const TRACEPARENT = /^00-(?!0{32}-)[0-9a-f]{32}-(?!0{16}-)[0-9a-f]{16}-[0-9a-f]{2}$/;

/** The request's traceparent when it is one valid line, else null: the task then starts a trace of its own. */
export function traceparentOf(rawHeaders: readonly string[]): string | null {
  const lines = headerLines(rawHeaders, TRACEPARENT_HEADER);
  // Trace Context §3.2: more than one traceparent line makes the header invalid.
  if (lines.length !== 1) return null;
  const value = lines[0].trim();
  return TRACEPARENT.test(value) ? value : null;
}

/** Where an outbound call finds the traceparent of the task it is made for; null when telemetry is off. */
export interface TraceContextSource {
  traceparentFor(taskId: string): string | null;
}
