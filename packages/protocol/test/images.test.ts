import assert from 'node:assert/strict';
import test from 'node:test';
import { type ImageMediaType, type JsonObject, type ReadMessage, readMessageParams } from '../src/index.js';
import { decodeBase64, hasImageMagic, IMAGE_MEDIA_TYPES, isImageMediaType } from '../src/images.js';
import type { MessageReaderLimits } from '../src/message-reader.js';

// Seed "Image parts": a raw part, base64 bytes, of image/png, image/jpeg, image/gif or image/webp; the door
// refuses the whole message with -32602, naming message.parts[<i>], on the first broken rule.

const LIMITS: MessageReaderLimits = { maxImageBytes: 64, maxImagesPerTurn: 2, transport: 'http' };

const MAGIC: Record<ImageMediaType, number[]> = {
  'image/png': [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
  'image/jpeg': [0xff, 0xd8, 0xff, 0xe0],
  'image/gif': [...Buffer.from('GIF89a')],
  'image/webp': [...Buffer.from('RIFF'), 0x24, 0, 0, 0, ...Buffer.from('WEBPVP8 ')],
};

const bytesOf = (mediaType: ImageMediaType, size = 16): Uint8Array => {
  const out = new Uint8Array(Math.max(size, MAGIC[mediaType].length));
  out.set(MAGIC[mediaType]);
  return out;
};
const b64 = (bytes: Uint8Array | number[]): string => Buffer.from(bytes).toString('base64');
const image = (mediaType: ImageMediaType, size = 16) => ({ raw: b64(bytesOf(mediaType, size)), mediaType });

function read(params: Record<string, unknown>, limits = LIMITS): ReadMessage {
  const verdict = readMessageParams(params as JsonObject, limits);
  if (!verdict.ok) assert.fail(`expected the message to be read, got ${JSON.stringify(verdict.error)}`);
  return verdict.read;
}
function assertInvalid(params: Record<string, unknown>, expected: string, limits = LIMITS): void {
  const verdict = readMessageParams(params as JsonObject, limits);
  assert.deepEqual(verdict, { ok: false, error: { code: -32602, message: expected } });
}
const msg = (parts: unknown[], over: Record<string, unknown> = {}) => ({ message: { messageId: 'm', role: 'ROLE_USER', parts, ...over } });

// ---------------------------------------------------------------------------------------------
// The helpers

test('the four image media types, exactly', () => {
  assert.deepEqual([...IMAGE_MEDIA_TYPES], ['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
  for (const t of IMAGE_MEDIA_TYPES) assert.equal(isImageMediaType(t), true);
  for (const t of ['image/jpg', 'image/PNG', 'image/svg+xml', 'image/bmp', 'application/pdf', '', undefined, null, 1]) {
    assert.equal(isImageMediaType(t), false, String(t));
  }
});

test('decodeBase64: standard base64, padded', () => {
  assert.deepEqual(decodeBase64('AAECAw=='), new Uint8Array([0, 1, 2, 3]));
  assert.deepEqual(decodeBase64('AAEC'), new Uint8Array([0, 1, 2]));
  assert.deepEqual(decodeBase64('+/8='), new Uint8Array([0xfb, 0xff]));
});

test('decodeBase64: URL-safe and unpadded forms, as ProtoJSON bytes allow', () => {
  assert.deepEqual(decodeBase64('-_8'), new Uint8Array([0xfb, 0xff]));
  assert.deepEqual(decodeBase64('-_8='), new Uint8Array([0xfb, 0xff]));
  assert.deepEqual(decodeBase64('AAECAw'), new Uint8Array([0, 1, 2, 3]));
  assert.deepEqual(decodeBase64(''), new Uint8Array([]));
});

test('decodeBase64: text that is not base64 is null', () => {
  for (const text of ['!!!!', 'AAE C', 'AAEC\n', 'A', 'AAAAA', 'AA=A', 'AA===', 'A===', 'AAE=A', 'AA=', '====', 'ÿÿÿÿ']) {
    assert.equal(decodeBase64(text), null, JSON.stringify(text));
  }
});

test('hasImageMagic: the first bytes of each type', () => {
  for (const t of IMAGE_MEDIA_TYPES) assert.equal(hasImageMagic(bytesOf(t), t), true, t);
  assert.equal(hasImageMagic(new Uint8Array([...Buffer.from('GIF87a')]), 'image/gif'), true);
  assert.equal(hasImageMagic(new Uint8Array([0xff, 0xd8, 0xff]), 'image/jpeg'), true);
});

test("hasImageMagic: another type's bytes, or too few bytes, are not an image of the declared type", () => {
  for (const declared of IMAGE_MEDIA_TYPES) {
    for (const actual of IMAGE_MEDIA_TYPES) {
      if (declared !== actual) assert.equal(hasImageMagic(bytesOf(actual), declared), false, `${actual} bytes as ${declared}`);
    }
    assert.equal(hasImageMagic(new Uint8Array([]), declared), false);
  }
  assert.equal(hasImageMagic(new Uint8Array([0x89, 0x50, 0x4e, 0x47]), 'image/png'), false, 'a cut PNG signature');
  assert.equal(hasImageMagic(new Uint8Array([0xff, 0xd8]), 'image/jpeg'), false);
  assert.equal(hasImageMagic(new Uint8Array([...Buffer.from('GIF88a')]), 'image/gif'), false);
  assert.equal(hasImageMagic(new Uint8Array([...Buffer.from('RIFF'), 0, 0, 0, 0, ...Buffer.from('WAVE')]), 'image/webp'), false, 'a RIFF that is not WEBP');
  assert.equal(hasImageMagic(new Uint8Array([...Buffer.from('RIFF'), 0, 0, 0, 0, ...Buffer.from('WEB')]), 'image/webp'), false);
});

// ---------------------------------------------------------------------------------------------
// Reading images

test('an image part of each type is read: after the text, in part order, with its bytes', () => {
  const parts = [{ text: 'look' }, image('image/png'), image('image/jpeg'), { text: 'and' }, image('image/gif'), image('image/webp')];
  const r = read(msg(parts), { ...LIMITS, maxImagesPerTurn: 4 });
  assert.equal(r.text, 'look\nand', 'images are left out of the text');
  assert.deepEqual(
    r.images.map((i) => [i.partIndex, i.mediaType]),
    [
      [1, 'image/png'],
      [2, 'image/jpeg'],
      [4, 'image/gif'],
      [5, 'image/webp'],
    ],
  );
  assert.deepEqual(r.images[0]!.bytes, bytesOf('image/png'));
  assert.deepEqual(r.images[3]!.bytes, bytesOf('image/webp'));
});

test('a message carrying only images is read: its text is empty', () => {
  const r = read(msg([image('image/png')]));
  assert.equal(r.text, '');
  assert.equal(r.images.length, 1);
});

test('an image part in URL-safe unpadded base64 is read', () => {
  const raw = b64(bytesOf('image/png', 17)).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
  assert.equal(read(msg([{ raw, mediaType: 'image/png' }])).images[0]!.bytes.length, 17);
});

test('an image of exactly context.images.max_bytes is read', () => {
  assert.equal(read(msg([image('image/png', 64)])).images[0]!.bytes.length, 64);
});

test('exactly context.images.max_per_turn images are read', () => {
  assert.equal(read(msg([image('image/png'), image('image/gif')])).images.length, 2);
});

test('an image on a message whose taskId is "" is read: "" names no task', () => {
  assert.equal(read(msg([image('image/png')], { taskId: '' })).images.length, 1);
});

// ---------------------------------------------------------------------------------------------
// Refusals, in the table's order

test('refused: raw is not base64', () => {
  assertInvalid(msg([{ text: 'a' }, { raw: 'not base64!', mediaType: 'image/png' }]), 'Invalid params: message.parts[1].raw is not base64');
});

test('refused: the bytes are not an image of the declared mediaType', () => {
  assertInvalid(
    msg([{ raw: b64(bytesOf('image/png')), mediaType: 'image/jpeg' }]),
    'Invalid params: message.parts[0] is not an image/jpeg image: its first bytes are not those of image/jpeg',
  );
  assertInvalid(
    msg([{ raw: '', mediaType: 'image/webp' }]),
    'Invalid params: message.parts[0] is not an image/webp image: its first bytes are not those of image/webp',
  );
});

test('refused: larger than context.images.max_bytes', () => {
  assertInvalid(msg([image('image/gif', 65)]), 'Invalid params: message.parts[0] is 65 bytes, over context.images.max_bytes 64');
});

test('refused: one image more than context.images.max_per_turn', () => {
  assertInvalid(
    msg([image('image/png'), { text: 'x' }, image('image/jpeg'), image('image/webp')]),
    'Invalid params: message.parts[3] is image 3 of this message, over context.images.max_per_turn 2',
  );
  assertInvalid(msg([image('image/png')]), 'Invalid params: message.parts[0] is image 1 of this message, over context.images.max_per_turn 0', {
    ...LIMITS,
    maxImagesPerTurn: 0,
  });
});

test('refused: an image on a message that names a taskId', () => {
  assertInvalid(
    msg([{ text: 'here' }, image('image/png')], { taskId: 'tsk_1' }),
    'Invalid params: message.parts[1] is an image on a message that continues task tsk_1; images go on the message that starts a task',
  );
});

test('refused: an image to a capsule on inference.transport: process', () => {
  assertInvalid(
    msg([image('image/png')]),
    'Invalid params: message.parts[0] is an image, and this capsule runs on inference.transport: process, whose harness takes no images from the door',
    { ...LIMITS, transport: 'process' },
  );
});

test('order: not base64 answers before a taskId and transport: process', () => {
  assertInvalid(msg([{ raw: '@@', mediaType: 'image/png' }], { taskId: 'tsk_1' }), 'Invalid params: message.parts[0].raw is not base64', {
    ...LIMITS,
    transport: 'process',
  });
});

test('order: wrong first bytes answer before the size limit', () => {
  const big = new Uint8Array(100);
  assertInvalid(
    msg([{ raw: b64(big), mediaType: 'image/png' }]),
    'Invalid params: message.parts[0] is not an image/png image: its first bytes are not those of image/png',
  );
});

test('order: the size limit answers before the count limit', () => {
  assertInvalid(
    msg([image('image/png'), image('image/png'), image('image/png', 65)]),
    'Invalid params: message.parts[2] is 65 bytes, over context.images.max_bytes 64',
  );
});

test('order: the count limit answers before a taskId', () => {
  assertInvalid(
    msg([image('image/png')], { taskId: 'tsk_1' }),
    'Invalid params: message.parts[0] is image 1 of this message, over context.images.max_per_turn 0',
    {
      ...LIMITS,
      maxImagesPerTurn: 0,
    },
  );
});

test('order: a taskId answers before transport: process', () => {
  assertInvalid(
    msg([image('image/png')], { taskId: 'tsk_7' }),
    'Invalid params: message.parts[0] is an image on a message that continues task tsk_7; images go on the message that starts a task',
    { ...LIMITS, transport: 'process' },
  );
});

test('the image parts are checked in order: the first broken image answers', () => {
  assertInvalid(
    msg([image('image/png', 65), { raw: '??', mediaType: 'image/png' }]),
    'Invalid params: message.parts[0] is 65 bytes, over context.images.max_bytes 64',
  );
  assertInvalid(msg([image('image/png'), { raw: '??', mediaType: 'image/png' }]), 'Invalid params: message.parts[1].raw is not base64');
});

test('the image checks come last: an earlier -32602 message rule answers first', () => {
  assertInvalid(msg([{ raw: '??', mediaType: 'image/png' }], { contextId: 5 }), 'Invalid params: message.contextId must be a string');
  assertInvalid(
    { ...msg([{ raw: '??', mediaType: 'image/png' }]), configuration: { returnImmediately: 'x' } },
    'configuration.returnImmediately must be a boolean',
  );
});

test('the image checks come after push: -32003 answers before a broken image', () => {
  const verdict = readMessageParams(
    { ...msg([{ raw: '??', mediaType: 'image/png' }]), configuration: { taskPushNotificationConfig: {} } } as JsonObject,
    LIMITS,
  );
  assert.equal(!verdict.ok && verdict.error.code, -32003);
});
