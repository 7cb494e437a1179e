import type { Manifest } from '../../manifest/manifest.schema.js';

/** How long a task waits for a reply (lifecycle.input_timeout_secs) in ms, the script's `ask` and request-input alike; null (no limit) for 0. */
export function inputTimeoutMs(lifecycle: Manifest['lifecycle']): number | null {
  const secs = lifecycle.input_timeout_secs;
  return secs === 0 ? null : secs * 1000;
}
