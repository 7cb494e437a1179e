import { ARTIFACT_REFUSAL } from '@murmur/protocol';
import type { RuntimeToolAnswer, ToolCallContext } from '../tool-call.js';

/** The text a runtime tool answers, before the runtime fences it as the tool's result. */
export type RuntimeToolRun = (input: Record<string, unknown>, ctx: ToolCallContext) => Promise<string | RuntimeToolAnswer>;

/**
 * The runtime-provided tools of seed 004 ("The twelve", shell binaries aside), each with the declaration that
 * grants it. The grant is the tool's existence: without it the tool is not in the inventory, and a call naming it
 * is refused with a message naming this declaration ("The grant is the tool's existence").
 */
export const RUNTIME_TOOL_GRANTS = {
  'share-file': 'exports.peer_files',
  'fetch-peer-file': 'capabilities.peer_fetch',
  'delegate-task': 'capabilities.spawn.allow',
  'submit-plan': 'capabilities.plan.submit',
  'switch-driver': 'control.agent_settings: [inference.driver]',
  'call-member': "a reachability rule in the formation's roster.yaml that lets this member call another",
  'end-without-answer': "a reachability rule in the formation's roster.yaml that lets this member call another",
  'pull-artifact': 'capabilities.install, under transport: http',
  'remove-artifact': 'capabilities.install, under transport: http',
  'session-status': 'an inference: block',
  'background-command': 'an inference: block, a non-empty capabilities.shell.allow and a lifecycle.shell_grace_secs',
  // Not one of seed 004's: the tool seed 001's request-input frames speak of (docs/agent-loop.md, "Asking for input").
  'request-input': 'capabilities.request_input: true',
} as const;

export type RuntimeToolName = keyof typeof RUNTIME_TOOL_GRANTS;

export function isRuntimeToolName(name: string): name is RuntimeToolName {
  return Object.hasOwn(RUNTIME_TOOL_GRANTS, name);
}

/**
 * The refusal of a call to a runtime tool whose grant this capsule does not declare. pull-artifact's and
 * remove-artifact's open with seed 004's token for that case, `not-granted:` (docs/artifacts.md, "Refusals").
 */
export function missingGrantMessage(name: RuntimeToolName): string {
  const token = name === 'pull-artifact' || name === 'remove-artifact' ? `${ARTIFACT_REFUSAL.notGranted} ` : '';
  return `${token}tool '${name}' does not exist in this capsule: it is provided only when the manifest declares ${RUNTIME_TOOL_GRANTS[name]}`;
}
