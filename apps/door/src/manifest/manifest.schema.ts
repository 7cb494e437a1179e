/**
 * murmur.yaml, validated: every key docs/manifest.md describes, unknown keys refused so a typo never passes silently.
 * A rule's message is what the key allows: a refusal reads `<path>: found <value>; allowed: <message>`.
 */
import { SCOPES } from '@murmur/protocol';
import * as z from 'zod';
import { oneOf, shown } from '../config/config-problem.js';
import { ARTIFACT_CODE } from '@murmur/protocol';
import { FULL_NAME_RULE, isGrantEntry, isReservedToolName, readArtifactRequest, toolNameOf } from './artifact-entries.js';

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
  if (renamed)
    ctx.addIssue({ code: 'custom', message: `its A2A v1.0 name ${shown(renamed)}`, params: { note: 'an A2A 0.3 scope name; this runtime speaks A2A v1.0' } });
  else ctx.addIssue({ code: 'custom', message: oneOf(SCOPES) });
});

const credentialName = z
  .string()
  .regex(/^[a-z][a-z0-9_-]*$/, 'a credential name: lowercase letters, digits, - and _, starting with a letter')
  .refine((n) => n !== 'operator', 'any name but "operator", the runtime\'s own credential, which cannot be declared');

const choiceName = z
  .string()
  .regex(/^[a-z][a-z0-9_-]*$/, 'a choice name: lowercase letters, digits, - and _, starting with a letter')
  .refine((n) => n !== 'script', 'any name but "script", the built-in choice inference.script declares');

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name: letters, digits and _, not starting with a digit');

/** A provider choice's keys (docs/drivers.md, "Declaring choices"). */
const providerChoice = {
  model: z.string().min(1),
  base_url: z.string().min(1).optional(),
  api_key_env: envName.optional(),
  max_output_tokens: z.number().int().min(1).default(4096),
  context_window: z.number().int().min(1).optional(),
  /** The provider's input ceiling, when it is below the window less the output cap (docs/agent-loop.md, "The context budget"). */
  max_input_tokens: z.number().int().min(1).optional(),
  idle_timeout_secs: z.number().positive().default(60),
  max_retries: z.number().int().min(0).max(10).default(2),
};

const inferenceChoice = z.discriminatedUnion('driver', [
  z.strictObject({ driver: z.literal('openai-compatible'), ...providerChoice }),
  z
    .strictObject({ driver: z.literal('anthropic'), ...providerChoice, thinking_budget_tokens: z.number().int().min(1024).optional() })
    .refine((c) => c.thinking_budget_tokens === undefined || c.thinking_budget_tokens < c.max_output_tokens, {
      message: 'fewer tokens than max_output_tokens',
      path: ['thinking_budget_tokens'],
    }),
  // A script choice may play a model with a window, so compaction is testable deterministically.
  z.strictObject({
    driver: z.literal('script'),
    script: z.string().min(1),
    context_window: z.number().int().min(1).optional(),
    max_input_tokens: z.number().int().min(1).optional(),
  }),
]);

export type InferenceChoice = z.output<typeof inferenceChoice>;

/** A capabilities.spawn.allow entry's bare name: its folder's last segment (`../workers/critic` → `critic`). */
export function spawnName(entry: string): string {
  return (
    entry
      .replace(/[\\/]+$/, '')
      .split(/[\\/]/)
      .at(-1) ?? entry
  );
}

/** One hook: a named command run as a shell call runs (docs/agent-loop.md, "Hooks"). */
const hook = z.strictObject({
  name: z.string().regex(/^[a-z][a-z0-9_-]*$/, 'a hook name: lowercase letters, digits, - and _, starting with a letter'),
  command: z.string().regex(/\S/, 'a non-blank command'),
  timeout_secs: z.number().int().min(1).max(600).default(30),
});

const hookList = z
  .array(hook)
  .default([])
  .refine((hooks) => new Set(hooks.map((h) => h.name)).size === hooks.length, { message: 'hooks with different names' });

/** What keep_working sends when the capsule gives no message of its own (docs/agent-loop.md, "keep_working"). */
const KEEP_WORKING_MESSAGE =
  'You ended your turn, but this task asks you to keep working: check that everything it asks for is done, do what is left, and then give your final answer again.';

/**
 * A declared artifact (docs/artifacts.md, "Declaring artifacts"): `<scope>/<name>` or `<scope>/<name>@<version>`,
 * whose tool name is not reserved (seed 004: E-CAP-013, refused before any artifact is read).
 */
const declaredArtifact = z.string().superRefine((value, ctx) => {
  const request = readArtifactRequest(value);
  if (request === null) {
    ctx.addIssue({ code: 'custom', message: `${FULL_NAME_RULE}, optionally followed by @<version>` });
    return;
  }
  const tool = toolNameOf(request.fullName);
  if (isReservedToolName(tool)) {
    ctx.addIssue({
      code: 'custom',
      message: `${ARTIFACT_CODE.reservedName}: an artifact whose tool name is not reserved: '${tool}' is the name of a runtime-provided tool`,
    });
  }
});

const grantEntry = z.string().refine(isGrantEntry, 'a full name <scope>/<name>, or a scope and a prefix ending in * (<scope>/<prefix>*)');

/** Grants pull-artifact and remove-artifact (seed 004): what the agent may pull, by tier, and from where. */
const installGrant = z.strictObject({
  tool: z.array(grantEntry).default([]),
  skill: z.array(grantEntry).default([]),
  from: z
    .array(z.enum(['stores', 'sources']))
    .default(['stores'])
    .refine((from) => from.join(',') === 'stores' || from.join(',') === 'stores,sources', { message: '[stores] or [stores, sources]' }),
});

const exportRoot = z.strictObject({ root: z.string().min(1).default('.') });

/** The harnesses a capsule on inference.transport: process may run (docs/harness.md). */
export const HARNESS_NAMES = ['claude-code', 'codex'] as const;
export type HarnessName = (typeof HARNESS_NAMES)[number];

/** The harness's own settings the runtime sets itself, so a manifest may not (docs/harness.md, "The manifest"). */
const RUNTIME_OWNED_SETTINGS: Record<HarnessName, readonly string[]> = {
  'claude-code': ['apiKeyHelper', 'env', 'permissions', 'sandbox', 'model'],
  codex: ['model', 'model_provider', 'model_providers', 'mcp_servers', 'sandbox_mode', 'approval_policy', 'developer_instructions'],
};

/** inference.harness: which harness, its model and endpoint, the key's variable, its own settings (docs/harness.md). */
const harness = z
  .strictObject({
    name: z.enum(HARNESS_NAMES),
    model: z.string().min(1),
    base_url: z.string().min(1).optional(),
    api_key_env: envName.optional(),
    /** claude-code only: the variable Claude Code reads the key from. */
    key_as: z.enum(['api-key', 'auth-token', 'oauth-token']).optional(),
    settings: z.record(z.string(), z.unknown()).default({}),
    prompt_suggestions: z.boolean().default(false),
    idle_timeout_secs: z.number().int().min(1).max(86_400).default(600),
    binary: z.string().min(1).optional(),
  })
  .superRefine((h, ctx) => {
    if (h.name !== 'claude-code') {
      if (h.key_as !== undefined) ctx.addIssue({ code: 'custom', path: ['key_as'], message: 'nothing for codex: key_as is claude-code’s' });
      if (h.prompt_suggestions) ctx.addIssue({ code: 'custom', path: ['prompt_suggestions'], message: 'false for codex: only claude-code predicts prompts' });
    }
    for (const key of Object.keys(h.settings)) {
      if (RUNTIME_OWNED_SETTINGS[h.name].includes(key)) {
        ctx.addIssue({
          code: 'custom',
          path: ['settings', key],
          message: `a setting the runtime does not set itself; ${h.name}'s ${RUNTIME_OWNED_SETTINGS[h.name].join(', ')} are the runtime's`,
        });
      }
    }
  });

const manifestShape = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, 'a capsule name: lowercase letters, digits, ., - and _, starting with a letter or digit'),
  version: z.string().regex(/^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?$/, 'a semantic version: MAJOR.MINOR.PATCH'),
  description: z.string().optional(),
  /** The artifacts staged when the session starts, each pinned in murmur.lock (docs/artifacts.md). */
  artifacts: z
    .array(declaredArtifact)
    .default([])
    .refine((entries) => new Set(entries.map((e) => toolNameOf(e.split('@')[0] ?? e))).size === entries.length, {
      message: 'artifacts with different tool names',
    }),
  lifecycle: z
    .strictObject({
      task_acceptance: z.enum(['single', 'queue', 'none']).default('single'),
      conversation: z.enum(['stateless', 'threaded']).default('stateless'),
      after_task: z.enum(['sleep', 'exit']).default('sleep'),
      shell_grace_secs: z.number().positive().optional(),
      /** Seconds before the session's deadline the agent is told it ends; 0 tells it nothing (seed 004). */
      deadline_notice_secs: z.number().int().min(0).optional(),
      /** How long one call-member call (offers to a busy member and the wait for its answer together) may take (seed 004). */
      delegation_deadline_secs: z.number().int().min(1).optional(),
      /** How long a task waits for a reply to its question; 0 waits without a limit (docs/agent-loop.md, "Asking for input"). */
      input_timeout_secs: z.number().int().min(0).max(604_800).default(900),
      /** How often on_task_end hooks may reopen one task (docs/agent-loop.md, "Hooks"). */
      max_task_reopens: z.number().int().min(0).max(100).default(0),
      /** Messages the runtime sends a task whose model answers, so it goes on (docs/agent-loop.md, "keep_working"). */
      keep_working: z
        .strictObject({
          limit: z.number().int().min(1).max(1000),
          message: z.string().regex(/\S/, 'a non-blank text').default(KEEP_WORKING_MESSAGE),
        })
        .optional(),
      /** A command run after the model answers; a failing exit sends the task back to work (docs/agent-loop.md, "done_check"). */
      done_check: z
        .strictObject({
          command: z.string().regex(/\S/, 'a non-blank command'),
          limit: z.number().int().min(1).max(100),
          timeout_secs: z.number().int().min(1).max(3600).default(300),
        })
        .optional(),
    })
    .prefault({}),
  inference: z
    .strictObject({
      /** The choice a session starts on: `script` (with `script`) or a name under `choices` (docs/drivers.md). Not under transport: process. */
      driver: z.string().min(1).optional(),
      /** Declares the built-in choice `script`. */
      script: z.string().min(1).optional(),
      choices: z.record(choiceName, inferenceChoice).default({}),
      max_turns: z.number().int().min(1).default(50),
      /** When the conversation is compacted before a call (docs/agent-loop.md, "Compaction"). */
      compaction: z
        .strictObject({
          threshold: z.number().gt(0, 'a fraction of the budget, above 0 and at most 1').max(1, 'a fraction of the budget, above 0 and at most 1').default(0.8),
          keep_turns: z.number().int().min(1).max(50).default(4),
        })
        .prefault({}),
      /** The session's spend ceiling in tokens (docs/agent-loop.md, "Spend ceilings"). */
      max_session_tokens: z.number().int().min(1).optional(),
      /** `http`: the runtime's own loop and a driver; `process`: a harness (docs/harness.md). */
      transport: z.enum(['http', 'process']).default('http'),
      harness: harness.optional(),
    })
    .superRefine((inference, ctx) => {
      if (inference.transport === 'process') {
        // The harness makes the inference calls: a driver choice would be dead configuration.
        if (inference.harness === undefined)
          ctx.addIssue({ code: 'custom', path: ['harness'], message: 'a harness, required under inference.transport: process' });
        for (const key of ['driver', 'script'] as const) {
          if (inference[key] !== undefined)
            ctx.addIssue({ code: 'custom', path: [key], message: 'nothing under inference.transport: process: the harness makes the inference calls' });
        }
        if (Object.keys(inference.choices).length > 0) {
          ctx.addIssue({ code: 'custom', path: ['choices'], message: 'nothing under inference.transport: process: the harness makes the inference calls' });
        }
        return;
      }
      if (inference.harness !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['harness'],
          message: 'nothing under inference.transport: http: a harness runs only under inference.transport: process',
        });
      if (inference.driver === undefined) {
        ctx.addIssue({ code: 'custom', path: ['driver'], message: 'a driver choice, required under inference.transport: http' });
        return;
      }
      if (inference.driver === 'script') {
        if (inference.script === undefined)
          ctx.addIssue({ code: 'custom', path: ['script'], message: 'a script file, required when inference.driver is script' });
        return;
      }
      if (!Object.hasOwn(inference.choices, inference.driver)) {
        const declared = [...(inference.script !== undefined ? ['script'] : []), ...Object.keys(inference.choices)];
        ctx.addIssue({
          code: 'custom',
          path: ['driver'],
          message: `a declared choice: ${declared.length > 0 ? declared.join(', ') : 'none is declared'} (inference.choices, or script with inference.script)`,
        });
      }
    })
    .optional(),
  /** Commands the runtime runs at its decision points: every tool call, and the end of each attempt (docs/agent-loop.md, "Hooks"). */
  hooks: z.strictObject({ on_tool_call: hookList, on_task_end: hookList }).prefault({}),
  /** This host's day total of tokens, shared by every session that declares it (docs/agent-loop.md, "Spend ceilings"). */
  spend: z.strictObject({ machine_tokens_per_day: z.number().int().min(1).optional() }).prefault({}),
  control: z
    .strictObject({
      /** The agent settings the agent may change itself (seed 004): inference.driver grants switch-driver. */
      agent_settings: z.array(z.enum(['inference.driver'])).default([]),
    })
    .prefault({}),
  capabilities: z
    .strictObject({
      shell: z
        .strictObject({
          allow: z.array(z.string().min(1)).default([]),
          /** Every command runs in the sandbox (docs/sandbox.md); `off` opts out, and says so at launch and in session_start. */
          sandbox: z.enum(['on', 'off']).default('on'),
          /** The door's environment variables a command receives, by name; no other reaches it (docs/sandbox.md, "Environment"). */
          env: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')).default([]),
          /** The largest file a sandboxed command may write, in MiB (RLIMIT_FSIZE; docs/sandbox.md, "Resource limits"). */
          max_file_mib: z.number().int().min(1).max(1_048_576).default(4096),
          /** The most processes the session's commands may run at once, where a pids cgroup can be made (docs/sandbox.md). */
          max_processes: z.number().int().min(8).max(1_000_000).default(1024),
          /** Each sandboxed command's /tmp, in MiB (a tmpfs; docs/sandbox.md, "Resource limits"). */
          max_tmp_mib: z.number().int().min(1).max(1_048_576).default(1024),
          /** The memory the session's sandboxed commands use together, in MiB, where a memory cgroup can be made (docs/sandbox.md). */
          max_memory_mib: z.number().int().min(16).max(16_777_216).default(4096),
          /** What the workdir may hold, in MiB: the door ends the session's running commands once it grows past it (docs/sandbox.md). */
          max_workdir_mib: z.number().int().min(1).max(1_073_741_824).default(10240),
        })
        .prefault({}),
      network: z.strictObject({ allow: z.array(z.string().min(1)).default([]) }).prefault({}),
      /** Grants request-input: the model may ask the task's sender a question and wait (docs/agent-loop.md, "Asking for input"). */
      request_input: z.boolean().default(false),
      /** Grants fetch-peer-file (seed 004): redeem a peer handle into the workdir (docs/planes.md). */
      peer_fetch: z.boolean().default(false),
      /**
       * Grants delegate-task (seed 004): the sub-capsules this capsule may delegate to, each a capsule folder relative
       * to this one; the tool names each by its folder's last segment (docs/formations.md, "Delegation").
       */
      spawn: z
        .strictObject({ allow: z.array(z.string().min(1)).default([]) })
        .prefault({})
        .refine((s) => new Set(s.allow.map(spawnName)).size === s.allow.length, {
          message: "entries with different bare names (a folder's last segment)",
          path: ['allow'],
        }),
      /** Grants submit-plan (seed 004): one plan of steps run against this session's tools (docs/plans.md). */
      plan: z.strictObject({ submit: z.boolean().default(false) }).prefault({}),
      /** Grants pull-artifact and remove-artifact (seed 004; docs/artifacts.md, "The install grant"). */
      install: installGrant.optional(),
      /** A WebAssembly tool's bounds (docs/artifacts.md, "WebAssembly tools"). */
      wasm: z
        .strictObject({
          max_secs: z.number().int().min(1).max(3600).default(30),
          max_memory_mib: z.number().int().min(1).max(4096).default(64),
        })
        .prefault({}),
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
          max_bytes: z
            .number()
            .int()
            .min(1)
            .default(5 * 1024 * 1024),
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

/** Under transport: process, what the other blocks may not say (docs/harness.md, "The manifest"). */
export const manifestSchema = manifestShape.superRefine((manifest, ctx) => {
  if (manifest.inference?.transport !== 'process') return;
  if (manifest.control.agent_settings.includes('inference.driver')) {
    ctx.addIssue({
      code: 'custom',
      path: ['control', 'agent_settings'],
      message: 'no inference.driver under inference.transport: process: switch-driver selects among driver choices, and a harness has none',
    });
  }
  if (manifest.capabilities.shell.sandbox === 'off') {
    ctx.addIssue({
      code: 'custom',
      path: ['capabilities', 'shell', 'sandbox'],
      message: '"on" under inference.transport: process: a harness and everything it runs always run in the sandbox',
    });
  }
  // Seed 004: pull-artifact exists only on the http agent loop; a capsule under transport: process is refused at load.
  if (manifest.capabilities.install !== undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['capabilities', 'install'],
      message:
        'nothing under inference.transport: process: pull-artifact and remove-artifact run only on the http agent loop, and the harness owns its tool list',
    });
  }
});

export type Manifest = z.output<typeof manifestSchema>;
