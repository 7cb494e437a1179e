import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { type FileHandle, link, lstat, open, unlink } from 'node:fs/promises';
import { AUDIENCE_HEADER, HANDLE_ID_HEADER, type JsonObject } from '@murmur/protocol';
import type { Manifest } from '../../manifest/manifest.schema.js';
import { type FolderBeneath, folderBeneath, viaDescriptor } from '../../paths/beneath.js';
import { allowsMemberDoor, allowsUrl } from '../../egress/member-egress.js';
import { boundedRequest, failureInWords, withoutAddresses } from '../../egress/outbound-request.js';
import type { OutboundTracing } from '../../egress/outbound-tracing.js';
import type { SessionContext } from '../../session/session-context.js';
import type { TraceWriter } from '../../records/trace-writer.js';
import { type ToolCallContext, ToolInputError } from '../tool-call.js';
import { PEER_PATH_PREFIX, toolPathSegments } from './tool-path.js';

/** How long a redeem may take before its answer's headers arrive. */
const REDEEM_HEADERS_TIMEOUT_MS = 10_000;

export const FETCH_PEER_FILE_DESCRIPTION =
  "Redeems a peer-file handle another formation member sent (its url) and stores the file in this capsule's workdir at save_as, which must not exist yet. Returns {handle_id, path, size}.";

export const FETCH_PEER_FILE_SCHEMA: JsonObject = {
  type: 'object',
  properties: {
    url: { type: 'string', description: 'the handle URL share-file returned to the peer: http://…/resources/peer/<handle>' },
    save_as: { type: 'string', description: 'where to store the file, relative to the workdir, segments separated by /' },
  },
  required: ['url', 'save_as'],
  additionalProperties: false,
};

export const fetchPeerFileGranted = (manifest: Manifest): boolean => manifest.capabilities.peer_fetch;

export interface FetchPeerFileDeps {
  session: SessionContext;
  trace: TraceWriter;
  /** The size limit: the settings' MURMUR_PEER_FETCH_MAX_BYTES (256 MiB unless set). */
  maxBytes: number;
  /** The redeem's HTTP client span (docs/telemetry.md). */
  tracing: OutboundTracing;
  /** Who the files and folders it makes belong to: the session's own user when the door is root (docs/sandbox.md), else null. */
  owner: number | null;
}

/** fetch-peer-file (docs/planes.md, "The tools"): every refusal is a ToolInputError. The URL (a secret) is never echoed. */
export async function runFetchPeerFile(input: Record<string, unknown>, deps: FetchPeerFileDeps, ctx: ToolCallContext): Promise<string> {
  const url = handleUrl(String(input.url));
  const saveAs = String(input.save_as);
  const segments = toolPathSegments(saveAs);
  if (segments === null)
    throw new ToolInputError(
      `fetch-peer-file: '${saveAs}' is not a path under the workdir: give segments separated by /, without '.', '..', '\\', control characters or a leading /`,
    );
  const allow = deps.session.manifest.capabilities.network.allow;
  const formationDoors = deps.session.formation?.doors;
  if (!allowsUrl(allow, url) && !(formationDoors !== undefined && allowsMemberDoor(allow, url, formationDoors))) {
    throw new ToolInputError(`fetch-peer-file: the handle's door is on ${url.hostname}, which capabilities.network.allow does not list; nothing was sent`);
  }
  const target = await destination(deps.session.workDir, segments, saveAs, deps.owner);
  const audience = deps.session.formation?.member ?? deps.session.manifest.name;
  let answer: Response;
  // The timeout bounds the wait for the headers only: fetch's signal also governs the body, and a large file may take
  // longer than that to arrive. The request's controller follows the task's signal for the whole redeem, so the task's
  // end still cancels the body; the headers' wait is raced against its own timer (egress/outbound-request.ts).
  const request = new AbortController();
  // The span's url.full withholds the handle, a secret, as REDACTED.
  const send = deps.tracing.http({ taskId: ctx.taskId, toolCallId: ctx.toolCallId }, fetch, `${url.origin}${PEER_PATH_PREFIX}REDACTED`);
  const follow = () => request.abort(ctx.signal.reason);
  ctx.signal.addEventListener('abort', follow, { once: true });
  try {
    try {
      answer = await boundedRequest((signal) => send(url.href, { headers: { [AUDIENCE_HEADER]: audience }, redirect: 'error', signal }), {
        timeoutMs: REDEEM_HEADERS_TIMEOUT_MS,
        signal: ctx.signal,
        controller: request,
      });
    } catch (error) {
      if (ctx.signal.aborted) throw ctx.signal.reason;
      // In words that name no address: the handle's URL is a secret, and its door's address reaches no model.
      throw new ToolInputError(`fetch-peer-file: the handle's door did not answer: ${failureInWords(error)}`);
    }
    return await redeemed(answer, target, segments, deps, ctx);
  } finally {
    ctx.signal.removeEventListener('abort', follow);
    await target.folder.handle.close().catch(() => undefined);
  }
}

/** The redeem's answer: a refusal, or the file stored at `target`. */
async function redeemed(answer: Response, target: Destination, segments: readonly string[], deps: FetchPeerFileDeps, ctx: ToolCallContext): Promise<string> {
  if (answer.status !== 200) throw new ToolInputError(`fetch-peer-file: the peer refused the handle: ${await refusalOf(answer)}`);
  const handleId = answer.headers.get(HANDLE_ID_HEADER);
  const declared = Number(answer.headers.get('content-length') ?? Number.NaN);
  if (declared > deps.maxBytes) {
    await answer.body?.cancel();
    throw new ToolInputError(`fetch-peer-file: the file is ${declared} bytes, past the ${deps.maxBytes}-byte limit; nothing was stored`);
  }
  const size = await store(answer, target, deps.maxBytes, Number.isSafeInteger(declared) ? declared : null, deps.owner);
  deps.trace.write('peer_file_fetched', { task_id: ctx.taskId, handle_id: handleId, path: segments.join('/'), size });
  return JSON.stringify({ handle_id: handleId, path: segments.join('/'), size });
}

function handleUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ToolInputError('fetch-peer-file: url is not a URL; give the handle URL the peer sent (http://…/resources/peer/<handle>)');
  }
  const ok = (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === '' && url.pathname.startsWith(PEER_PATH_PREFIX);
  if (!ok) throw new ToolInputError('fetch-peer-file: url is not a peer handle URL (http://…/resources/peer/<handle>)');
  return url;
}

/** Where the file goes: its folder, opened under the workdir (docs/sandbox.md, "The door's own file work"), and its name. */
interface Destination {
  folder: FolderBeneath;
  name: string;
}

/**
 * The folder of `save_as` under the workdir, walked and made one component at a time without following a link out of
 * the workdir (nothing is made outside before a refusal, whatever a command swaps meanwhile); the name must not exist yet.
 */
async function destination(workDir: string, segments: readonly string[], saveAs: string, owner: number | null): Promise<Destination> {
  let folder: FolderBeneath;
  try {
    folder = await folderBeneath(workDir, segments.slice(0, -1), { make: { mode: 0o755, owner } });
  } catch {
    throw new ToolInputError(`fetch-peer-file: '${saveAs}' leads outside the workdir or cannot be made under it`);
  }
  const name = segments[segments.length - 1]!;
  const exists = await lstat(viaDescriptor(folder.handle, name)).then(
    () => true,
    () => false,
  );
  if (exists) {
    await folder.handle.close();
    throw new ToolInputError(`fetch-peer-file: '${saveAs}' already exists in the workdir; fetch-peer-file never replaces a file`);
  }
  return { folder, name };
}

/**
 * Writes the body to a temporary file in the destination's folder and links it into place through the same opened
 * folder; returns the size. A body that ends short of its content-length (the connection broke, or the peer's file
 * shrank while it was sent and the plane cut the connection) stores nothing. The file found at the name afterwards
 * must be the one written.
 */
async function store(answer: Response, target: Destination, maxBytes: number, declared: number | null, owner: number | null): Promise<number> {
  const temporary = viaDescriptor(target.folder.handle, `.${target.name}.${randomBytes(6).toString('hex')}.part`);
  const final = viaDescriptor(target.folder.handle, target.name);
  let file: FileHandle | null = await open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
  let size = 0;
  try {
    if (owner !== null) await file.chown(owner, owner);
    const written = await file.stat();
    if (answer.body !== null) {
      for await (const chunk of answer.body) {
        size += chunk.byteLength;
        if (size > maxBytes) {
          await answer.body.cancel().catch(() => undefined);
          throw new ToolInputError(`fetch-peer-file: the download passed the ${maxBytes}-byte limit and was cut off; nothing was stored`);
        }
        await file.write(chunk);
      }
    }
    if (declared !== null && size !== declared) throw new Error(`the body ended after ${size} of its ${declared} bytes`);
    await file.close();
    file = null;
    try {
      // link() fails when the target appeared meanwhile: a file is never replaced.
      await link(temporary, final);
    } catch {
      throw new ToolInputError(`fetch-peer-file: '${target.name}' appeared in the workdir during the download; fetch-peer-file never replaces a file`);
    }
    const stored = await lstat(final).catch(() => null);
    if (stored === null || stored.dev !== written.dev || stored.ino !== written.ino) {
      throw new ToolInputError(`fetch-peer-file: '${target.name}' was changed in the workdir during the download; what is there is not the file fetched`);
    }
    return size;
  } catch (error) {
    if (error instanceof ToolInputError) throw error;
    const why = withoutAddresses(error instanceof Error ? error.message : String(error));
    const where = declared === null ? `after ${size} bytes` : `after ${size} of ${declared} bytes`;
    throw new ToolInputError(`fetch-peer-file: the download broke off ${where} (${why}); nothing was stored`);
  } finally {
    await file?.close().catch(() => undefined);
    await unlink(temporary).catch(() => undefined);
  }
}

async function refusalOf(answer: Response): Promise<string> {
  const text = await answer.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { error?: unknown; message?: unknown };
    if (typeof body.error === 'string') return `${body.error} (HTTP ${answer.status}): ${withoutAddresses(String(body.message))}`;
  } catch {
    // not a refusal body
  }
  return `HTTP ${answer.status}`;
}
