/**
 * Validators are compiled on a tool's first call, not at start (docs/benchmarks.md, "Issue 28, second pass"): every
 * schema the door declares must still compile under strict Ajv, and a call's input is checked as before.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JsonObject } from '@murmur/protocol';
import { BACKGROUND_COMMAND_SCHEMA } from './runtime/background-command.js';
import { callMemberSchema, END_WITHOUT_ANSWER_CHECKED_SCHEMA, END_WITHOUT_ANSWER_SCHEMA } from './runtime/call-member.js';
import { delegateTaskSchema } from './runtime/delegate-task.js';
import { FETCH_PEER_FILE_SCHEMA } from './runtime/fetch-peer-file.js';
import { REQUEST_INPUT_SCHEMA } from './runtime/request-input.js';
import { SESSION_STATUS_SCHEMA } from './runtime/session-status.js';
import { SHARE_FILE_SCHEMA } from './runtime/share-file.js';
import { SUBMIT_PLAN_CHECKED_SCHEMA, SUBMIT_PLAN_SCHEMA } from './runtime/submit-plan.js';
import { ToolInputError } from './tool-call.js';
import { shellEntry, ToolInventory } from './tool-inventory.js';

const runtime = (name: string, inputSchema: JsonObject, checkedSchema?: JsonObject) => ({
  name,
  kind: 'runtime' as const,
  description: name,
  inputSchema,
  checkedSchema,
});

test('every schema the door declares compiles under strict Ajv on its first call', async () => {
  const inventory = new ToolInventory([
    shellEntry('bash'),
    runtime('background-command', BACKGROUND_COMMAND_SCHEMA),
    runtime('end-without-answer', END_WITHOUT_ANSWER_SCHEMA, END_WITHOUT_ANSWER_CHECKED_SCHEMA),
    runtime('call-member', callMemberSchema(['worker', 'critic'])),
    runtime('delegate-task', delegateTaskSchema(['child'])),
    runtime('fetch-peer-file', FETCH_PEER_FILE_SCHEMA),
    runtime('request-input', REQUEST_INPUT_SCHEMA),
    runtime('session-status', SESSION_STATUS_SCHEMA),
    runtime('share-file', SHARE_FILE_SCHEMA),
    runtime('submit-plan', SUBMIT_PLAN_SCHEMA, SUBMIT_PLAN_CHECKED_SCHEMA),
  ]);
  for (const name of inventory.names()) await assert.doesNotReject(() => inventory.inputRefusal(name, {}), name);
});

test('a call is checked against its schema, the first call as the next', async () => {
  const inventory = new ToolInventory([shellEntry('bash')]);
  assert.equal(await inventory.inputRefusal('bash', { command: 'ls' }), null);
  assert.equal(await inventory.inputRefusal('bash', { command: 7 }), 'command 7 is not a string');
  assert.equal(await inventory.inputRefusal('bash', { cmd: 'ls' }), 'the input has an unknown field "cmd"');
  assert.equal(await inventory.inputRefusal('sh', { anything: true }), null, 'a tool not in the inventory is refused elsewhere');
});

test('a schema that does not compile at a call is a ToolInputError naming the tool (a tool error, never a throw out of dispatch), every call', async () => {
  const artifact = { name: 'echo', kind: 'artifact' as const, description: 'echo', inputSchema: { type: 'object', properties: { said: { type: 'strin' } } } };
  const inventory = new ToolInventory([artifact, shellEntry('bash')]);
  const said =
    'echo: its input schema does not compile, so no call of it can be checked and none runs (schema is invalid: data/properties/said/type must be equal to one of the allowed values, data/properties/said/type must be array, data/properties/said/type must match a schema in anyOf)';
  for (let call = 0; call < 2; call++)
    await assert.rejects(inventory.inputRefusal('echo', { said: 'x' }), (error: unknown) => error instanceof ToolInputError && error.message === said);
  assert.equal(await inventory.inputRefusal('bash', { command: 'ls' }), null, 'the other tools are checked as before');
});
