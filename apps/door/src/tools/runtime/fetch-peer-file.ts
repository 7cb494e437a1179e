import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { type FileHandle, link, lstat, mkdir, open, realpath, unlink } from 'node:fs/promises';
import path from 'node:path';
import { AUDIENCE_HEADER, HANDLE_ID_HEADER, type JsonObject } from '@murmur/protocol';
import type { Manifest } from '../../manifest/manifest.schema.js';
import { isInside } from '../../paths/confined-open.js';
import { allowsMemberDoor, allowsUrl } from '../../egress/member-egress.js';
import { boundedRequest, failureInWords, withoutAddresses } from '../../egress/outbound-request.js';
import type { OutboundTracing } from '../../egress/outbound-tracing.js';
import type { SessionContext } from '../../session/session-context.js';
import type { TraceWriter } from '../../records/trace-writer.js';
import { type ToolCallContext, ToolInputError } from '../tool-call.js';
import { PEER_PATH_PREFIX, toolPathSegments } from './tool-path.js';

/** How long a redeem may take before its answer's headers arrive. */
export const REDEEM_HEADERS_TIMEOUT_MS = 10_000;

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
}

/** fetch-peer-file (docs/planes.md, "The tools"): every refusal is a ToolInputError. The URL (a secret) is never echoed. */
export async function runFetchPeerFile(input: Record<string, unknown>, deps: FetchPeerFileDeps, ctx: ToolCallContext): Promise<string> {
  const url = handleUrl(String(input.url));
  const saveAs = String(input.save_as);
  const segments = toolPathSegments(saveAs);
  if (segments === null) throw new ToolInputError(`fetch-peer-file: '${saveAs}' is not a path under the workdir: give segments separated by /, without '.', '..', '\\', control characters or a leading /`);
  const allow = deps.session.manifest.capabilities.network.allow;
  const formationDoors = deps.session.formation?.doors;
  if (!allowsUrl(allow, url) && !(formationDoors !== undefined && allowsMemberDoor(allow, url, formationDoors))) {
    throw new ToolInputError(`fetch-peer-file: the handle's door is on ${url.hostname}, which capabilities.network.allow does not list; nothing was sent`);
  }
  const target = await destination(deps.session.workDir, segments, saveAs);
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
  }
}

/** The redeem's answer: a refusal, or the file stored at `target`. */
async function redeemed(answer: Response, target: string, segments: readonly string[], deps: FetchPeerFileDeps, ctx: ToolCallContext): Promise<string> {
  if (answer.status !== 200) throw new ToolInputError(`fetch-peer-file: the peer refused the handle: ${await refusalOf(answer)}`);
  const handleId = answer.headers.get(HANDLE_ID_HEADER);
  const declared = Number(answer.headers.get('content-length') ?? Number.NaN);
  if (declared > deps.maxBytes) {
    await answer.body?.cancel();
    throw new ToolInputError(`fetch-peer-file: the file is ${declared} bytes, past the ${deps.maxBytes}-byte limit; nothing was stored`);
  }
  const size = await store(answer, target, deps.maxBytes, Number.isSafeInteger(declared) ? declared : null);
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

/** The final path under the workdir's real path; its folders are made, and it must not exist yet. */
async function destination(workDir: string, segments: readonly string[], saveAs: string): Promise<string> {
  const workReal = await realpath(workDir);
  const parent = path.join(workReal, ...segments.slice(0, -1));
  let parentReal: string;
  try {
    await mkdir(parent, { recursive: true });
    parentReal = await realpath(parent);
  } catch {
    throw new ToolInputError(`fetch-peer-file: '${saveAs}' cannot be made under the workdir`);
  }
  if (!isInside(workReal, parentReal)) throw new ToolInputError(`fetch-peer-file: '${saveAs}' leads outside the workdir`);
  const target = path.join(parentReal, segments[segments.length - 1]);
  const exists = await lstat(target).then(
    () => true,
    () => false,
  );
  if (exists) throw new ToolInputError(`fetch-peer-file: '${saveAs}' already exists in the workdir; fetch-peer-file never replaces a file`);
  return target;
}

/**
 * Writes the body to a temporary file beside the target and links it into place; returns the size. A body that ends
 * short of its content-length (the connection broke, or the peer's file shrank while it was sent and the plane cut
 * the connection) stores nothing.
 */
async function store(answer: Response, target: string, maxBytes: number, declared: number | null): Promise<number> {
  const temporary = path.join(path.dirname(target), `.${path.basename(target)}.${randomBytes(6).toString('hex')}.part`);
  let file: FileHandle | null = await open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  let size = 0;
  try {
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
      await link(temporary, target);
    } catch {
      throw new ToolInputError(`fetch-peer-file: '${path.basename(target)}' appeared in the workdir during the download; fetch-peer-file never replaces a file`);
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
