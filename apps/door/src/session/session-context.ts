import type { DoorSettings } from '../config/settings.js';
import type { Manifest } from '../manifest/manifest.schema.js';
import type { FormationSeat } from '../seat/formation-seat.js';
import type { SessionDeadline } from './session-deadline.js';

/** What a door knows of its own session: fixed at staging, except the address, which is known once it listens. */
export interface SessionContext {
  readonly sessionId: string;
  readonly manifest: Manifest;
  /** The capsule folder: murmur.yaml, the script. Tools do not run here. */
  readonly capsuleDir: string;
  /** <records>/work: the session's own working folder, where tools run (docs/agent-loop.md, "The workdir"). */
  readonly workDir: string;
  /** <records>/runtime: what staging writes for the session, such as the tool manifests under tools/<name>/. */
  readonly runtimeDir: string;
  /** When the runtime ends the session (mur run --deadline), or null. */
  readonly deadline: SessionDeadline | null;
  readonly scriptPath: string | null;
  /** $MURMUR_HOME/records/<capsule path>/<session id>: store.db, trace.jsonl, out/, logs/. */
  readonly recordsDir: string;
  readonly host: string;
  readonly requestedPort: number;
  /** http://<host:port>, set once the listener is bound. */
  url: string;
  readonly startedAtMs: number;
  /** Reopening a session's records after it stopped (mur run --resume). */
  readonly resumed: boolean;
  /** The session's place in a formation (mur run --roster), or null for a capsule run on its own. */
  readonly formation: FormationSeat | null;
  /** Interval of the `:heartbeat` comment on every open stream: 15 s, or MURMUR_HEARTBEAT_MS. */
  readonly heartbeatMs: number;
  /** The process's environment settings, read once at its start (config/settings.ts, docs/cli.md). */
  readonly settings: DoorSettings;
}

export const SESSION_CONTEXT = Symbol('SESSION_CONTEXT');
