/** murmur.yaml, validated: every key docs/manifest.md describes, unknown keys refused so a typo never passes silently. */
import { SCOPES } from '@murmur/protocol';
import { z } from 'zod';

const RETIRED_SCOPES: Record<string, string> = {
  'message/send': 'SendMessage',
  'message/stream': 'SendStreamingMessage',
  'tasks/get': 'GetTask',
  'tasks/cancel': 'CancelTask',
  'stream/watch': 'murmur.WatchSession',
  'session/stop': 'murmur.StopSession',
};

const scope = z.string().superRefine((value, ctx) => {
  if (SCOPES.includes(value)) return;
  const renamed = RETIRED_SCOPES[value];
  ctx.addIssue({
    code: 'custom',
    message: renamed
      ? `'${value}' is an A2A 0.3 scope name; this runtime speaks A2A v1.0, so write '${renamed}'`
      : `unknown scope '${value}'; a scope is one of ${SCOPES.join(', ')}`,
  });
});

const credentialName = z
  .string()
  .regex(/^[a-z][a-z0-9_-]*$/, 'a credential name is lowercase letters, digits, - and _, starting with a letter')
  .refine((n) => n !== 'operator', "'operator' is the runtime's own credential and cannot be declared");

const exportRoot = z.strictObject({ root: z.string().min(1).default('.') });

export const manifestSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, 'a capsule name is lowercase letters, digits, ., - and _'),
  version: z.string().regex(/^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?$/, 'a version is semantic: MAJOR.MINOR.PATCH'),
  description: z.string().optional(),
  lifecycle: z
    .strictObject({
      task_acceptance: z.enum(['single', 'queue', 'none']).default('single'),
      conversation: z.enum(['stateless', 'threaded']).default('stateless'),
      after_task: z.enum(['sleep', 'exit']).default('sleep'),
      shell_grace_secs: z.number().positive().optional(),
      /** Seconds before the session's deadline the agent is told it ends; 0 tells it nothing (seed 004). */
      deadline_notice_secs: z.number().int().min(0).optional(),
    })
    .prefault({}),
  inference: z
    .strictObject({
      driver: z.literal('script'),
      script: z.string().min(1),
      max_turns: z.number().int().min(1).default(50),
      transport: z.literal('http').default('http'),
    })
    .optional(),
  capabilities: z
    .strictObject({
      shell: z.strictObject({ allow: z.array(z.string().min(1)).default([]) }).prefault({}),
      network: z.strictObject({ allow: z.array(z.string().min(1)).default([]) }).prefault({}),
    })
    .prefault({}),
  exports: z
    .strictObject({
      files: exportRoot.optional(),
      peer_files: exportRoot.optional(),
      peer_tasks: z.strictObject({ accept: z.boolean().default(false) }).optional(),
    })
    .prefault({}),
  context: z
    .strictObject({
      images: z
        .strictObject({
          max_bytes: z.number().int().min(1).default(5 * 1024 * 1024),
          max_per_turn: z.number().int().min(0).default(4),
        })
        .prefault({}),
    })
    .prefault({}),
  network: z
    .strictObject({
      authentication: z
        .strictObject({
          scheme: z.literal('bearer'),
          credentials: z.record(credentialName, z.strictObject({ scopes: z.array(scope).min(1) })).default({}),
        })
        .optional(),
    })
    .prefault({}),
});

export type Manifest = z.output<typeof manifestSchema>;
