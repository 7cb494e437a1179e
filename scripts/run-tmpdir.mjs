// A test run's own temporary folder: the runners (the door's, Playwright's, node-lines') hand it to their tests as
// TMPDIR, which os.tmpdir() reads, so every folder the tests, their doors and Chromium make (some 3,500 and 2 GB in a
// run of the door's suite) goes under it, and the run removes it at its end instead of leaving it in /tmp. Sticky and
// open to all, as /tmp is: some tests run their doors as another user.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A new folder under the system's temporary folder, `murmur-<name>-run-…`, and how to remove it with all it holds. */
export function runTmpdir(name) {
  const dir = mkdtempSync(path.join(tmpdir(), `murmur-${name}-run-`));
  chmodSync(dir, 0o1777);
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true, maxRetries: 3 }) };
}
