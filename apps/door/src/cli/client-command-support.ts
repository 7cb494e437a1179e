/**
 * What the client commands (mur ps, watch, cancel, stop) share: argument parsing with their own usage, the token a
 * command sends, the card checks, residue lines, and the SDK's errors in plain words. These commands are the only
 * part of the door that uses @murmur/client; every request it sends carries A2A-Version: 1.0 (seed 000).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { type A2AError, errorKind, type HttpRefusalError, MurmurClient, type MurmurClientOptions } from '@murmur/client';
import {
  type AgentCard,
  ARTIFACT_ID,
  CAPSULE_EXTENSION_URI,
  HTTP_REFUSALS,
  MURMUR_STATE_WORD,
  messageText,
  type ResidueItem,
  type Task,
  type TaskState,
} from '@murmur/protocol';
import { readTokens, TOKENS_FILE } from '../auth/tokens.js';
import type { SessionEntry } from '../session/session-registry.js';
import { OPERATOR_PRINCIPAL } from '../auth/caller.js';
import { type Line, printErr, printOut, type Tone, writeOut } from './terminal-lines.js';
import { UsageError } from './usage-error.js';
import { findSession } from './session-lookup.js';

/** A failure talking to a door: the command prints the message and exits 1. */
export class DoorFailure extends Error {
  override readonly name = 'DoorFailure';
}

/** Where a client command writes: whole lines (pieces of which may be painted), and raw text (streamed chunks). */
export interface CommandIo {
  out(line: Line): void;
  write(text: string): void;
  err(line: Line): void;
}

/** The terminal: control characters escaped, whatever a command printed or a model wrote (terminal-lines.ts). */
export const processIo: CommandIo = { out: printOut, write: writeOut, err: printErr };

/** How long mur ps and mur stop wait for a card. */
export const CARD_TIMEOUT_MS = 2000;

/** Runs a parseArgs call, reporting a bad flag as a usage error that names this command's usage (exit 2). */
export function withUsage<T>(usage: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${usage}`);
  }
}

/**
 * The token a command sends: `--token`, else the operator token of a local authenticated session (its records
 * folder holds tokens.json), else none (a public door needs none).
 */
export function tokenFor(session: SessionEntry | null, explicit: string | undefined): string | undefined {
  if (explicit !== undefined) return explicit;
  if (session === null) return undefined;
  if (!existsSync(path.join(session.recordsDir, TOKENS_FILE))) return undefined;
  try {
    return readTokens(session.recordsDir).find((t) => t.credential === OPERATOR_PRINCIPAL)?.token;
  } catch {
    return undefined;
  }
}

export function clientFor(url: string, token: string | undefined, options: MurmurClientOptions = {}): MurmurClient {
  return new MurmurClient(url, { ...options, token });
}

/** What a client command talks to: a registered session, or a bare door address. */
export interface Target {
  session: SessionEntry | null;
  url: string;
  /** The session id, or the address when no session is known. */
  label: string;
}

function looksLikeAddress(named: string): boolean {
  return /^https?:\/\//.test(named) || /^[^\s/]+:\d+$/.test(named);
}

/** A running session named by id, id prefix or address; or, for an address no session registered, the address itself. */
export function resolveTarget(named: string | undefined): Target {
  try {
    const session = findSession(named);
    return { session, url: session.url, label: session.sessionId };
  } catch (error) {
    if (named === undefined || !looksLikeAddress(named)) throw error;
    const url = (/^https?:\/\//.test(named) ? named : `http://${named}`).replace(/\/+$/, '');
    return { session: null, url, label: url };
  }
}

/** The capsule extension's sessionId on a card, or null when the card carries no capsule extension. */
function cardSessionId(card: AgentCard): string | null {
  const capsule = card.capabilities?.extensions?.find((e) => e.uri === CAPSULE_EXTENSION_URI);
  const id = capsule?.params?.sessionId;
  return typeof id === 'string' ? id : null;
}

/**
 * Whether a card is the door of `session` (seed 000, "A card with no supportedInterfaces"): a card without
 * supportedInterfaces comes from a runtime at v0.4.0 or earlier and names no session; a public card names its session
 * in the capsule extension; an authenticated door keeps that extension on its extended card, so the registry's id
 * stands.
 */
export function checkCard(card: AgentCard, session: SessionEntry): { ok: true } | { ok: false; reason: string } {
  if (!Array.isArray(card.supportedInterfaces) || card.supportedInterfaces.length === 0) {
    return { ok: false, reason: 'its card has no supportedInterfaces (a runtime at v0.4.0 or earlier), so it names no session' };
  }
  const named = cardSessionId(card);
  if (named !== null) {
    return named === session.sessionId ? { ok: true } : { ok: false, reason: `the door at ${session.url} answers for session ${named}, not this one` };
  }
  const authenticated = card.capabilities?.extendedAgentCard === true || Object.keys(card.securitySchemes ?? {}).length > 0;
  return authenticated ? { ok: true } : { ok: false, reason: 'its card names no session (no capsule extension)' };
}

/** One residue item as mur cancel and mur stop print it (seed 000, "Residue items"). */
export function residueLine(item: ResidueItem): string {
  switch (item.kind) {
    case 'detached_shell':
      return `running: ${item.binary} ${item.command} (work_id ${item.work_id})`;
    case 'delegation':
      return `ended: ${item.capsule} ${item.version} (delegation ${item.delegation_id})`;
    default:
      return `residue: ${JSON.stringify(item)}`;
  }
}

/** The residue items of a CancelTask answer: the data parts of its `residue` artifact. */
export function residueOf(task: Task): ResidueItem[] {
  const artifact = task.artifacts?.find((a) => a.artifactId === ARTIFACT_ID.residue);
  if (!artifact) return [];
  return artifact.parts.flatMap((part) => (part.data !== undefined && part.data !== null ? [part.data as unknown as ResidueItem] : []));
}

/** Murmur's word for a state: working, input-required, completed… */
export function stateWord(state: string): string {
  return MURMUR_STATE_WORD[state as TaskState] ?? state;
}

const STATE_TONE: Partial<Record<TaskState, Tone>> = {
  TASK_STATE_COMPLETED: 'good',
  TASK_STATE_FAILED: 'bad',
  TASK_STATE_REJECTED: 'bad',
  TASK_STATE_CANCELED: 'quiet',
  TASK_STATE_WORKING: 'busy',
  TASK_STATE_SUBMITTED: 'busy',
  TASK_STATE_INPUT_REQUIRED: 'waiting',
  TASK_STATE_AUTH_REQUIRED: 'waiting',
};

/** A state's word, painted in its tone on a terminal (docs/cli.md, "Colour"). */
export function statePiece(state: string): { text: string; tone: Tone } {
  return { text: stateWord(state), tone: STATE_TONE[state as TaskState] ?? 'quiet' };
}

/** The text of a status message, '' when it has none. */
export function statusText(task: Pick<Task, 'status'>): string {
  return messageText(task.status.message);
}

/** An SDK error (or a timeout) in plain words, for `mur: <words>`. */
export function inPlainWords(error: unknown, target: { url: string; label: string }): string {
  const kind = errorKind(error);
  switch (kind) {
    case 'a2a': {
      const a2a = error as A2AError;
      return `the door refused the request: ${a2a.message} (${a2a.code}${a2a.reason ? ` ${a2a.reason}` : ''})`;
    }
    case 'http-refusal': {
      const refusal = error as HttpRefusalError;
      if (refusal.status === 401) {
        return refusal.code === HTTP_REFUSALS.invalid_token.code
          ? `the door at ${target.url} refused the token (401 invalid_token): pass a token of this session with --token (mur token prints them)`
          : `the door at ${target.url} needs a token (401 unauthenticated): pass one with --token (mur token prints them)`;
      }
      if (refusal.status === 403) return `the token may not do this (403 ${refusal.code ?? 'forbidden'}): ${refusal.message}`;
      return `the door at ${target.url} answered HTTP ${refusal.status}: ${refusal.message}`;
    }
    case 'connection': {
      const cause = error instanceof Error && error.cause instanceof Error && error.cause.cause instanceof Error ? error.cause.cause.message : '';
      return `no answer from ${target.url} (${target.label})${cause ? `: ${cause}` : ''}`;
    }
    case 'invalid-response':
      return `the answer from ${target.url} is not a door's answer: ${(error as Error).message}`;
    case 'stream':
      return `the stream from ${target.url} failed: ${(error as Error).message}`;
    case 'aborted':
    case 'timeout':
      return `no answer from ${target.url} (${target.label}) in time`;
    case 'unknown':
      return error instanceof Error ? error.message : String(error);
    default: {
      const unreachable: never = kind;
      throw new TypeError(`unknown error kind ${String(unreachable)}`);
    }
  }
}

/** Fetches a card with a short timeout and no retries. */
export function fetchCard(client: MurmurClient, timeoutMs = CARD_TIMEOUT_MS): Promise<AgentCard> {
  return client.getCard({ signal: AbortSignal.timeout(timeoutMs), maxRetries: 0 });
}
