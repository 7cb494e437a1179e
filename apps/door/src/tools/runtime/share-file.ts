import path from 'node:path';
import { AGENT_CARD_PATH, type JsonObject } from '@murmur/protocol';
import type { Manifest } from '../../manifest/manifest.schema.js';
import { openBeneath } from '../../paths/beneath.js';
import { allowsMemberDoor } from '../../egress/member-egress.js';
import { boundedRequest, failureInWords } from '../../egress/outbound-request.js';
import type { OutboundTracing } from '../../egress/outbound-tracing.js';
import { DEFAULT_HANDLE_TTL_SECS, MAX_HANDLE_TTL_SECS, MAX_HANDLE_USES, type PeerHandles } from '../../peers/peer-handles.js';
import type { SessionContext } from '../../session/session-context.js';
import type { TraceWriter } from '../../records/trace-writer.js';
import { ToolInputError, type ToolCallContext } from '../tool-call.js';
import { PEER_PATH_PREFIX, toolPathSegments } from './tool-path.js';

/** How long minting waits for the audience's card. */
const CARD_TIMEOUT_MS = 3_000;

export const SHARE_FILE_DESCRIPTION =
  'Mints a peer-file handle for one file under the declared export root (exports.peer_files), for one formation member (the audience). Returns {handle_id, url, expires_at, uses}: send the url to that member, whose fetch-peer-file redeems it.';

export const SHARE_FILE_SCHEMA: JsonObject = {
  type: 'object',
  properties: {
    path: { type: 'string', description: 'the file, relative to the export root, segments separated by /' },
    audience: { type: 'string', description: 'the member that may redeem the handle, as the roster names it' },
    ttl_secs: { type: 'integer', minimum: 1, maximum: MAX_HANDLE_TTL_SECS, description: `seconds the handle lives (default ${DEFAULT_HANDLE_TTL_SECS})` },
    uses: { type: 'integer', minimum: 1, maximum: MAX_HANDLE_USES, description: 'redeems it allows (default 1)' },
  },
  required: ['path', 'audience'],
  additionalProperties: false,
};

export const shareFileGranted = (manifest: Manifest): boolean => manifest.exports.peer_files !== undefined;

export interface ShareFileDeps {
  session: SessionContext;
  handles: PeerHandles;
  trace: TraceWriter;
  /** The card read's HTTP client span (docs/telemetry.md). */
  tracing: OutboundTracing;
}

/** share-file (docs/planes.md, "The tools"): every refusal is a ToolInputError naming its rule. */
export async function runShareFile(input: Record<string, unknown>, deps: ShareFileDeps, ctx: ToolCallContext): Promise<string> {
  const { session } = deps;
  const exported = session.manifest.exports.peer_files;
  if (exported === undefined) throw new ToolInputError('share-file: this capsule does not declare exports.peer_files');
  const relative = String(input.path);
  const audience = String(input.audience);
  const segments = toolPathSegments(relative);
  if (segments === null)
    throw new ToolInputError(
      `share-file: '${relative}' is not a path under exports.peer_files.root: give segments separated by /, without '.', '..', '\\', control characters or a leading /`,
    );
  const root = path.resolve(session.capsuleDir, exported.root);
  const opened = await openBeneath(root, segments, 'file');
  if (opened === null) throw new ToolInputError(`share-file: nothing can be shared at '${relative}': it is not a regular file under exports.peer_files.root`);
  const { dev, ino } = opened.stats;
  await opened.handle.close();
  await checkAudience(audience, deps, ctx);
  const ttlSecs = typeof input.ttl_secs === 'number' ? input.ttl_secs : DEFAULT_HANDLE_TTL_SECS;
  const uses = typeof input.uses === 'number' ? input.uses : 1;
  const { secret, handle } = deps.handles.mint({ audience, file: { segments, dev, ino }, ttlSecs, uses });
  const expiresAt = new Date(handle.expiresAtMs).toISOString();
  deps.trace.write('peer_handle_mint', { task_id: ctx.taskId, handle_id: handle.id, audience, path: segments.join('/'), expires_at: expiresAt, uses });
  return JSON.stringify({ handle_id: handle.id, url: `${session.url}${PEER_PATH_PREFIX}${secret}`, expires_at: expiresAt, uses });
}

/**
 * The audience must be a member this capsule may call (a callee in the formation's roster), seated, reachable under
 * capabilities.network.allow, and its card must list a JSONRPC interface (seed 000, "A card with no
 * supportedInterfaces"). Anything else fails peer_unreachable.
 */
async function checkAudience(audience: string, deps: ShareFileDeps, ctx: ToolCallContext): Promise<void> {
  const { signal } = ctx;
  const seat = deps.session.formation;
  if (seat === null || !seat.callees.includes(audience)) {
    const callees = seat === null || seat.callees.length === 0 ? 'none' : seat.callees.join(', ');
    throw new ToolInputError(`peer_unreachable: '${audience}' is not a member this capsule may call (members it may call: ${callees})`);
  }
  const link = seat.link(audience);
  if (link === undefined) throw new ToolInputError(`peer_unreachable: ${audience}'s door is not known yet`);
  const cardUrl = new URL(AGENT_CARD_PATH, link.url);
  if (!allowsMemberDoor(deps.session.manifest.capabilities.network.allow, cardUrl, seat.doors)) {
    throw new ToolInputError(`peer_unreachable: ${audience}'s door is on localhost, which capabilities.network.allow does not list; nothing was sent`);
  }
  const send = deps.tracing.http({ taskId: ctx.taskId, toolCallId: ctx.toolCallId }, fetch, cardUrl.href);
  let card: unknown;
  try {
    card = await boundedRequest(
      async (bounded) => {
        const answer = await send(cardUrl.href, { signal: bounded, redirect: 'error' });
        if (!answer.ok) throw new CardAnswer(`its card answered HTTP ${answer.status}`);
        try {
          return await answer.json();
        } catch (error) {
          if (error instanceof SyntaxError) throw new CardAnswer('its card is not JSON');
          throw error;
        }
      },
      { timeoutMs: CARD_TIMEOUT_MS, signal },
    );
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    // The member's name only: its door's address never reaches the model (seed 004).
    const why = error instanceof CardAnswer ? error.message : failureInWords(error);
    throw new ToolInputError(`peer_unreachable: ${audience}'s card could not be read: ${why}`);
  }
  if (!hasJsonRpcInterface(card)) throw new ToolInputError('peer_unreachable: its card has no JSONRPC interface');
}

/** What the card's door answered that is not a card: said as it is, since it names no address. */
class CardAnswer extends Error {}

function hasJsonRpcInterface(card: unknown): boolean {
  const interfaces = (card as { supportedInterfaces?: unknown } | null)?.supportedInterfaces;
  return Array.isArray(interfaces) && interfaces.some((entry) => (entry as { protocolBinding?: unknown } | null)?.protocolBinding === 'JSONRPC');
}
