import type { HarnessName } from '../../manifest/manifest.schema.js';
import type { HarnessSpec } from '../../manifest/harness-spec.js';
import type { HarnessEventReader } from './harness-events.js';
import type { QuotaWindowFrameFields } from '@murmur/protocol';

/** Which harness session a run starts in: a new one (with the id the runtime minted, when the harness takes one), or a resumed one. */
export type SessionMode = { kind: 'new'; id: string | null } | { kind: 'resume'; id: string };

/** The environment variable the tool server's token reaches the harness in (its MCP configuration names it, never holds it). */
export const TOOLS_TOKEN_VARIABLE = 'MURMUR_TOOLS_TOKEN';

/** One run of a harness, as its command line and environment are built from it. */
export interface RunPlan {
  spec: HarnessSpec;
  mode: SessionMode;
  /** What is left of inference.max_turns. */
  turnsLeft: number;
  /** The capsule's prompt: the runtime's system prompt for a harness. */
  systemPrompt: string;
  workDir: string;
  /** The tool server as the harness reaches it inside the sandbox. */
  toolServerUrl: string;
  /** Seconds the harness lets one tool-server call take before it gives up on it. */
  toolTimeoutSecs: number;
}

/** One harness CLI: how a run is started, how its lines are read, and what its own store holds. */
export interface HarnessAdapter {
  readonly name: HarnessName;
  /** Folders the harness expects to find in its home (made at setup). */
  readonly homeFolders: readonly string[];
  /** The arguments after the executable; the prompt goes on standard input. */
  args(plan: RunPlan): string[];
  /** What the harness's environment adds to the commands' allow-list (its home is set by the run): `key` the provider's key, or null. */
  env(plan: RunPlan, home: string, key: string | null): Record<string, string>;
  /** A session id for a new session, when the harness takes one from its caller (claude-code); null when it announces its own. */
  newSessionId(): string | null;
  reader(): HarnessEventReader & { readonly lastWords?: string | null };
  /** Whether the harness's store (its home, on the host) holds the session. */
  sessionStored(home: string, id: string): boolean;
  /** Whether the harness's standard error says it could not resume. */
  resumeRefused(stderr: string): boolean;
  /** Windows the harness wrote to its own store since the last call (codex's session log); none for a harness that streams them. */
  quotaSince?(home: string, sessionId: string): QuotaWindowFrameFields[];
}
