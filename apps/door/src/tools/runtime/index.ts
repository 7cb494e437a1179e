import type { Manifest } from '../../manifest/manifest.schema.js';
import type { TraceWriter } from '../../session/trace-writer.js';
import type { BackgroundCommands } from '../background-commands.js';
import { backgroundCommandGranted, runBackgroundCommand } from './background-command.js';
import type { RuntimeToolName, RuntimeToolRun } from './runtime-tools.js';

/** A runtime tool this runtime implements: whether the manifest grants it, and how a call runs. */
export interface RuntimeTool {
  granted(manifest: Manifest): boolean;
  run: RuntimeToolRun;
}

export interface RuntimeToolDeps {
  background: BackgroundCommands;
  trace: TraceWriter;
}

/** The runtime tools implemented so far, by name: the dispatcher looks a call up here instead of branching on names. */
export function runtimeTools(deps: RuntimeToolDeps): Partial<Record<RuntimeToolName, RuntimeTool>> {
  return {
    'background-command': { granted: backgroundCommandGranted, run: (input, ctx) => runBackgroundCommand(input, { commands: deps.background, trace: deps.trace }, ctx) },
  };
}

export { isRuntimeToolName, missingGrantMessage, RUNTIME_TOOL_GRANTS, type RuntimeToolName } from './runtime-tools.js';
