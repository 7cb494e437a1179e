import type { Variables } from '../../config/settings.js';
import type { DriverChoice } from '../../manifest/inference-choices.js';
import type { TraceWriter } from '../../records/trace-writer.js';
import type { DriverSelection } from '../../tools/runtime/index.js';
import type { DriverFactory } from '../agent-loop.js';
import type { TaskDriver } from '../driver.js';
import { loadScript, ScriptTaskDriver } from '../script-driver.js';
import type { Script } from '../script.schema.js';
import { AnthropicDriver } from './anthropic-driver.js';
import { OpenAiCompatibleDriver } from './openai-driver.js';
import type { ProviderDriverDeps } from './provider-driver.js';
import { SelectedDriver } from './selected-driver.js';

export interface DriverFactoryDeps {
  selection: DriverSelection;
  trace: TraceWriter;
  /** Aborted when the session ends. */
  sessionSignal: AbortSignal;
  /** Where a provider choice's key variable is read at each call: the session's settings. */
  variables: Variables;
}

/**
 * The agent loop's driver factory: every task gets a SelectedDriver over the declared choices. Scripts are loaded
 * (and validated) once, here, so a bad script stops the launch.
 */
export function createDriverFactory(deps: DriverFactoryDeps): DriverFactory {
  const scripts = new Map<string, Script>();
  for (const choice of deps.selection.choices.values()) if (choice.driver === 'script') scripts.set(choice.name, loadScript(choice.scriptPath));
  const build = (choice: DriverChoice, task: { id: string; text: string }): TaskDriver => {
    if (choice.driver === 'script') return new ScriptTaskDriver(scripts.get(choice.name)!, task.text);
    const providerDeps: ProviderDriverDeps = {
      choice,
      sessionSignal: deps.sessionSignal,
      variables: deps.variables,
      onRetry: (notice) =>
        deps.trace.write('inference_retry', {
          task_id: task.id,
          turn: notice.turn,
          driver: choice.name,
          attempt: notice.attempt,
          reason: notice.reason,
          delay_ms: notice.delayMs,
        }),
    };
    return choice.driver === 'anthropic' ? new AnthropicDriver(providerDeps) : new OpenAiCompatibleDriver(providerDeps);
  };
  return (task) => new SelectedDriver(task, { selection: deps.selection, trace: deps.trace, build });
}
