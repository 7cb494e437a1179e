import path from 'node:path';
import type { ConfigProblem } from '../../config/config-problem.js';
import { makePrivateDir } from '../../common/private-files.js';
import { makeStoreFolder } from './harness-store.js';
import { harnessSpec } from '../../manifest/harness-spec.js';
import { MANIFEST_FILE, ManifestError } from '../../manifest/manifest.loader.js';
import type { HarnessName } from '../../manifest/manifest.schema.js';
import type { ProcessRegistry } from '../../tools/process-registry.js';
import type { SessionSandbox } from '../../tools/sandbox/session-sandbox.js';
import { WorkdirBound } from '../../tools/sandbox/workdir-bound.js';
import type { QuotaWindows } from '../../usage/quota-windows.js';
import type { TurnStepDeps } from '../turn/turn-steps.js';
import { claudeCode } from './claude-code.js';
import { codexAdapter } from './codex.js';
import { ContextSessions, harnessStateFolder } from './context-sessions.js';
import { HarnessLoop } from './harness-loop.js';
import { providerDestination, toolServerPort } from './harness-network.js';
import { locateHarness } from './harness-pins.js';
import type { HarnessAdapter } from './run-plan.js';
import { TOOL_SERVER_PATH, ToolServer } from './tool-server.js';

/** Each harness's adapter. */
export function adapterFor(name: HarnessName): HarnessAdapter {
  return name === 'claude-code' ? claudeCode : codexAdapter();
}

/**
 * The task runner of a capsule on transport: process (docs/harness.md), built when the door starts: the harness
 * found (or the launch refused, naming the exact install command), its home and the context map beside the capsule's
 * sessions, the tool server, and the run's sandbox with the provider and the tool server relayed into it.
 */
export async function createHarnessLoop(
  deps: TurnStepDeps & { sandbox: SessionSandbox; processes: ProcessRegistry; quota: QuotaWindows },
): Promise<HarnessLoop> {
  const { session } = deps;
  const manifestFile = path.join(session.capsuleDir, MANIFEST_FILE);
  const problems: ConfigProblem[] = [];
  const spec = harnessSpec(session.manifest, session.settings, problems);
  if (spec === null) throw new ManifestError(manifestFile, problems);
  const located = locateHarness(spec.name, spec.binary, session.settings.harnessDir, manifestFile);
  const state = harnessStateFolder(session.recordsDir);
  const home = path.join(state, spec.name);
  const adapter = adapterFor(spec.name);
  makePrivateDir(home);
  // Below the home, what an earlier run's sandbox left is the harness's doing: never followed (harness-store.ts).
  for (const folder of adapter.homeFolders) makeStoreFolder(home, folder);
  const toolServer = new ToolServer(deps.log);
  const provider = providerDestination(spec.baseUrl);
  const port = toolServerPort(session.manifest.capabilities.network.allow, provider);
  const built = await deps.sandbox.harnessSandbox(
    { binDir: located.binDir, home, destinations: [provider, { host: 'localhost', port, serve: (socket) => toolServer.serve(socket) }] },
    session,
  );
  // A run writes the workdir and the harness's home: both are measured while it runs, against max_workdir_mib each.
  const workdirBound = deps.sandbox.workdirBound;
  if (workdirBound === null) throw new Error('a harness runs only in a bubblewrap sandbox, whose workdir is measured');
  const homeBound = new WorkdirBound(home, session.manifest.capabilities.shell.max_workdir_mib);
  return new HarnessLoop({
    ...deps,
    spec,
    adapter,
    located,
    contexts: new ContextSessions(state),
    home,
    sandbox: built.sandbox,
    commandEnv: deps.sandbox.env,
    toolServer,
    toolServerUrl: `http://127.0.0.1:${port}${TOOL_SERVER_PATH}`,
    key: spec.apiKeyEnv === null ? null : (session.settings.variable(spec.apiKeyEnv) ?? null),
    bounds: [
      { bound: workdirBound, what: 'the workdir' },
      { bound: homeBound, what: "the harness's home" },
    ],
    closeSandbox: async () => {
      homeBound.close();
      await built.close();
    },
  });
}
