import type { JsonObject } from '@murmur/protocol';
import { type DriverChoice, describeChoice } from '../../manifest/inference-choices.js';
import type { Manifest } from '../../manifest/manifest.schema.js';
import type { TraceWriter } from '../../records/trace-writer.js';
import { type ToolCallContext, ToolInputError } from '../tool-call.js';
import type { DriverSelection } from './driver-selection.js';

const SETTING = 'inference.driver';
const AGENT = { principal: 'agent' } as const;

/** Granted by control.agent_settings: [inference.driver] in a capsule with an inference: block (seed 004). */
export function switchDriverGranted(manifest: Manifest): boolean {
  return manifest.inference !== undefined && manifest.control.agent_settings.includes(SETTING);
}

/** Seed 004: {"driver": "<choice name>"}, the schema listing every declared choice. */
export function switchDriverSchema(selection: DriverSelection): JsonObject {
  return {
    type: 'object',
    properties: { driver: { type: 'string', enum: selection.names(), description: 'The name of a declared driver choice' } },
    required: ['driver'],
    additionalProperties: false,
  };
}

/** Seed 004: the description lists every choice with its model and driver. */
export function switchDriverDescription(selection: DriverSelection): string {
  const listed = [...selection.choices.values()].map((c) => `${c.name} (${describeChoice(c)})`).join('; ');
  return `Selects the driver choice that serves your next inference call and every one after it; the calls of this turn still run. Choices: ${listed}.`;
}

/** A refusal: a tool error to the model, a control_refused record, and nothing switches. */
export function refuseSwitch(deps: { trace: TraceWriter }, value: unknown, reason: string, ctx: Pick<ToolCallContext, 'taskId'>): void {
  deps.trace.write('control_refused', { principal: 'agent', setting: SETTING, value: value ?? null, reason, task_id: ctx.taskId });
}

export async function runSwitchDriver(
  input: Record<string, unknown>,
  deps: { drivers: DriverSelection; trace: TraceWriter },
  ctx: Pick<ToolCallContext, 'taskId'>,
): Promise<string> {
  const name = input.driver;
  const outcome = typeof name === 'string' ? deps.drivers.switchTo(name, AGENT) : ({ switched: false, reason: 'driver is required' } as const);
  if (!outcome.switched) {
    refuseSwitch(deps, name, outcome.reason, ctx);
    throw new ToolInputError(outcome.reason);
  }
  const { from, to } = outcome;
  deps.trace.write('control_change', { principal: 'agent', setting: SETTING, from: from.name, to: to.name, task_id: ctx.taskId });
  return switchResult(from, to);
}

/** What an accepted switch says, to the model and to the control surface's caller alike. */
export function switchResult(from: DriverChoice, to: DriverChoice): string {
  if (from.name === to.name) return `${SETTING} is already ${to.name}; nothing changes`;
  return `${SETTING}: ${from.name} → ${to.name} (${describeChoice(to)}); the next inference call is served by ${to.name}`;
}
