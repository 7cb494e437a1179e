/**
 * Reads params.message of SendMessage / SendStreamingMessage in the order seed 000 ("Messages") fixes.
 * The first failure answers; every refusal comes before any task is looked up or started.
 */
import { renderDataPart } from './data-fence.js';
import { contentTypeNotSupported, invalidParams, pushNotSupported } from './errors.js';
import { decodeBase64, hasImageMagic, type ImageMediaType, isImageMediaType } from './images.js';
import { isPlainObject } from './jsonrpc.js';
import type { JsonObject, JsonRpcErrorObject, JsonValue, Message, Part } from './types.js';
import { DOOR_EXTENSION_URI } from './uris.js';

export const MAX_REFERENCED_TASKS = 16;

export interface MessageReaderLimits {
  /** context.images.max_bytes */
  maxImageBytes: number;
  /** context.images.max_per_turn */
  maxImagesPerTurn: number;
  /** inference.transport */
  transport: 'http' | 'process';
}

export interface MessageImage {
  partIndex: number;
  mediaType: ImageMediaType;
  bytes: Uint8Array;
}

export interface ReadMessage {
  message: Message;
  /** The task this message continues, or null ("" names none). */
  taskId: string | null;
  contextId: string | null;
  /** Distinct, in first-occurrence order. */
  referenceTaskIds: string[];
  forgetSession: boolean;
  returnImmediately: boolean;
  /** The parts as the agent reads them: joined by a newline, data parts fenced, images left out. */
  text: string;
  images: MessageImage[];
  /** The message's metadata holds the door extension's URI: the answer names it in A2A-Extensions. */
  usesDoorExtension: boolean;
}

export type MessageVerdict = { ok: true; read: ReadMessage } | { ok: false; error: JsonRpcErrorObject };

const PART_KINDS = ['text', 'raw', 'url', 'data'] as const;
const PART_STRING_FIELDS = ['text', 'raw', 'url', 'mediaType', 'filename'] as const;
const DOOR_KEY = `message.metadata[${JSON.stringify(DOOR_EXTENSION_URI)}]`;

const refuse = (message: string): MessageVerdict => ({ ok: false, error: invalidParams(`Invalid params: ${message}`) });

export function readMessageParams(params: JsonObject, limits: MessageReaderLimits): MessageVerdict {
  // 1. params.message is an object.
  const raw: unknown = params.message;
  if (!isPlainObject(raw)) return refuse('params.message must be an object');

  // 2. messageId, role, then parts.
  if (typeof raw.messageId !== 'string' || raw.messageId === '') return refuse('message.messageId must be a non-empty string');
  if (raw.role !== 'ROLE_USER') return refuse(`message.role must be ROLE_USER, not ${JSON.stringify(raw.role ?? null)}`);
  if (!Array.isArray(raw.parts) || raw.parts.length === 0) return refuse('message.parts must be a non-empty array');
  const parts: unknown[] = raw.parts;

  // 3. Every part sets exactly one of text, raw, url and data.
  for (const [i, part] of parts.entries()) {
    if (!isPlainObject(part)) return refuse(`message.parts[${i}] must be an object`);
    const set = PART_KINDS.filter((kind) => kind in part);
    if (set.length !== 1) return refuse(`message.parts[${i}] must set exactly one of text, raw, url and data`);
  }
  // 4. text, raw, url, mediaType and filename are strings where present.
  for (const [i, part] of (parts as Record<string, unknown>[]).entries()) {
    for (const field of PART_STRING_FIELDS) {
      if (field in part && typeof part[field] !== 'string') return refuse(`message.parts[${i}].${field} must be a string`);
    }
  }
  const typedParts = parts as Part[];

  // 5. taskId and contextId, then referenceTaskIds.
  if ('taskId' in raw && typeof raw.taskId !== 'string') return refuse('message.taskId must be a string');
  if ('contextId' in raw && typeof raw.contextId !== 'string') return refuse('message.contextId must be a string');
  const referenceTaskIds: string[] = [];
  if ('referenceTaskIds' in raw) {
    const refs: unknown = raw.referenceTaskIds;
    if (!Array.isArray(refs) || !refs.every((r) => typeof r === 'string' && r !== '')) {
      return refuse('message.referenceTaskIds must be an array of non-empty strings');
    }
    for (const ref of refs as string[]) if (!referenceTaskIds.includes(ref)) referenceTaskIds.push(ref);
    if (referenceTaskIds.length > MAX_REFERENCED_TASKS) {
      return refuse(`message.referenceTaskIds names ${referenceTaskIds.length} distinct tasks; at most ${MAX_REFERENCED_TASKS}`);
    }
  }
  const taskId = typeof raw.taskId === 'string' && raw.taskId !== '' ? raw.taskId : null;
  const contextId = typeof raw.contextId === 'string' && raw.contextId !== '' ? raw.contextId : null;

  // 6. The door extension's key in metadata, then its forgetSession.
  let forgetSession = false;
  let usesDoorExtension = false;
  if (isPlainObject(raw.metadata) && DOOR_EXTENSION_URI in raw.metadata) {
    usesDoorExtension = true;
    const door: unknown = raw.metadata[DOOR_EXTENSION_URI];
    if (!isPlainObject(door)) return refuse(`${DOOR_KEY} must be an object`);
    if ('forgetSession' in door) {
      if (typeof door.forgetSession !== 'boolean') return refuse(`${DOOR_KEY}.forgetSession must be a boolean`);
      forgetSession = door.forgetSession;
    }
    if (forgetSession && taskId !== null) {
      return refuse(`forgetSession starts a new conversation, so it goes on a message that starts a task, not on one that continues task ${taskId}`);
    }
  }

  // 7. configuration.returnImmediately.
  const configuration: unknown = params.configuration;
  if (configuration !== undefined && configuration !== null && !isPlainObject(configuration)) {
    return { ok: false, error: invalidParams('Invalid params: configuration must be an object') };
  }
  const returnImmediatelyRaw: unknown = isPlainObject(configuration) ? configuration.returnImmediately : undefined;
  if (returnImmediatelyRaw !== undefined && returnImmediatelyRaw !== null && typeof returnImmediatelyRaw !== 'boolean') {
    return { ok: false, error: invalidParams('configuration.returnImmediately must be a boolean') };
  }

  // 8. The first url part, or raw part that is not an image: -32005.
  for (const [i, part] of typedParts.entries()) {
    if ('url' in part) {
      return {
        ok: false,
        error: contentTypeNotSupported(
          `message.parts[${i}] is a url part; this agent reads text parts, data parts and image raw parts only`,
          i,
          part.mediaType,
        ),
      };
    }
    if ('raw' in part && !isImageMediaType(part.mediaType)) {
      const kind = part.mediaType === undefined ? 'a raw part with no media type' : `a raw part of media type ${part.mediaType}`;
      return {
        ok: false,
        error: contentTypeNotSupported(`message.parts[${i}] is ${kind}; this agent reads text parts, data parts and image raw parts only`, i, part.mediaType),
      };
    }
  }

  // 9. Push notifications asked for: -32003.
  if (isPlainObject(configuration) && configuration.taskPushNotificationConfig !== undefined && configuration.taskPushNotificationConfig !== null) {
    return { ok: false, error: pushNotSupported() };
  }

  // 10. forgetSession: true needs a harness session, which only transport: process has.
  if (forgetSession && limits.transport !== 'process') {
    return {
      ok: false,
      error: invalidParams(
        'forgetSession asks this capsule to forget the harness session this context names, and only a capsule on inference.transport: process has one',
      ),
    };
  }

  // 11. The image parts, in order.
  const images: MessageImage[] = [];
  for (const [i, part] of typedParts.entries()) {
    if (!('raw' in part)) continue;
    const mediaType = part.mediaType as ImageMediaType;
    const bytes = decodeBase64(part.raw as string);
    if (bytes === null) return refuse(`message.parts[${i}].raw is not base64`);
    if (!hasImageMagic(bytes, mediaType)) return refuse(`message.parts[${i}] is not an ${mediaType} image: its first bytes are not those of ${mediaType}`);
    if (bytes.length > limits.maxImageBytes) {
      return refuse(`message.parts[${i}] is ${bytes.length} bytes, over context.images.max_bytes ${limits.maxImageBytes}`);
    }
    if (images.length + 1 > limits.maxImagesPerTurn) {
      return refuse(`message.parts[${i}] is image ${images.length + 1} of this message, over context.images.max_per_turn ${limits.maxImagesPerTurn}`);
    }
    if (taskId !== null) {
      return refuse(`message.parts[${i}] is an image on a message that continues task ${taskId}; images go on the message that starts a task`);
    }
    if (limits.transport === 'process') {
      return refuse(`message.parts[${i}] is an image, and this capsule runs on inference.transport: process, whose harness takes no images from the door`);
    }
    images.push({ partIndex: i, mediaType, bytes });
  }

  // A data part the door cannot render (nested past the JSON printer's depth) is a part it cannot read in full:
  // refused -32602 naming it, like every other unreadable part, rather than failing later as an internal error.
  const rendered: string[] = [];
  for (const [i, part] of typedParts.entries()) {
    if ('raw' in part) continue;
    if ('text' in part) {
      rendered.push(part.text as string);
      continue;
    }
    try {
      rendered.push(renderDataPart(part.data as JsonValue, part.mediaType, part.filename));
    } catch (error) {
      if (error instanceof RangeError) return refuse(`message.parts[${i}].data is nested too deeply to read`);
      throw error;
    }
  }
  const text = rendered.join('\n');

  const message: Message = {
    messageId: raw.messageId,
    role: 'ROLE_USER',
    parts: typedParts,
    ...(contextId !== null ? { contextId } : {}),
    ...(taskId !== null ? { taskId } : {}),
    ...(referenceTaskIds.length > 0 ? { referenceTaskIds } : {}),
  };
  return {
    ok: true,
    read: { message, taskId, contextId, referenceTaskIds, forgetSession, returnImmediately: returnImmediatelyRaw === true, text, images, usesDoorExtension },
  };
}
