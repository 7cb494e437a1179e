import path from 'node:path';
import type { DoorSettings } from '../config/settings.js';
import { ContextSessions } from '../agent/harness/context-sessions.js';
import { adapterFor } from '../agent/harness/harness-setup.js';
import { cannotResume, resumeProblem } from '../agent/harness/session-opening.js';
import { loadManifest } from '../manifest/manifest.loader.js';
import { launchTaskText, recordsDirFor } from '../session/stage-session.js';
import { UsageError } from './usage-error.js';

/** The seed's sentence (seed 000, forgetSession) for a forget asked of a capsule without a harness. */
const NO_HARNESS_SESSION =
  'forgetSession asks this capsule to forget the harness session this context names, and only a capsule on inference.transport: process has one';

/**
 * mur run's --context and --forget-session (docs/harness.md, "forgetSession"), checked before anything is staged:
 * they name the launch's task, so there must be one; a forget needs a harness; and the context's harness session must
 * be one this capsule can resume, or the launch stops with E-RUN-036 — unless it is being forgotten.
 */
export function checkLaunchContext(
  options: { dir: string; context: string | undefined; forgetSession: boolean; resume: string | undefined; task: string | undefined },
  settings: DoorSettings,
): void {
  const { context } = options;
  if (context === undefined) {
    if (options.forgetSession) throw new UsageError('--forget-session forgets the harness session of the context --context names: give --context <id>');
    return;
  }
  if (context === '') throw new UsageError("--context takes a context id, not ''");
  if (options.resume !== undefined)
    throw new UsageError('--context names the context of the launch’s task, and a resumed session (--resume) runs no launch task');
  const loaded = loadManifest(options.dir, settings);
  if (launchTaskText(loaded.dir, options.task) === null) {
    throw new UsageError('--context names the context of the launch’s task, and there is none: give --task, or a task.md or input.txt in the capsule folder');
  }
  const harness = loaded.manifest.inference?.transport === 'process' ? loaded.manifest.inference.harness : undefined;
  if (harness === undefined) {
    if (options.forgetSession) throw new UsageError(NO_HARNESS_SESSION);
    return;
  }
  if (options.forgetSession) return;
  const state = path.join(path.dirname(recordsDirFor(loaded.dir, 'session', settings.home)), 'harness');
  const entry = new ContextSessions(state).get(context);
  if (entry === null) return;
  const problem = resumeProblem(entry, adapterFor(harness.name), path.join(state, harness.name));
  if (problem !== null) throw new UsageError(cannotResume(context, entry.harness, entry.sessionId, problem));
}
