/** Image raw parts: the four media types the door reads, base64 decoding, and the first bytes of each type. */

export const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
export type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number];

export function isImageMediaType(mediaType: unknown): mediaType is ImageMediaType {
  return typeof mediaType === 'string' && (IMAGE_MEDIA_TYPES as readonly string[]).includes(mediaType);
}

// ProtoJSON bytes may be standard or URL-safe base64, padded or not.
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** Decodes base64 (standard or URL-safe, padding optional), or returns null when the text is not base64. */
export function decodeBase64(text: string): Uint8Array | null {
  if (!BASE64.test(text)) return null;
  const unpadded = text.replace(/=+$/, '');
  if (unpadded.length % 4 === 1) return null;
  if (text.includes('=') && text.length % 4 !== 0) return null;
  const standard = unpadded.replace(/-/g, '+').replace(/_/g, '/');
  const padded = standard + '='.repeat((4 - (standard.length % 4)) % 4);
  const binary = atob(padded);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function startsWith(bytes: Uint8Array, prefix: readonly number[], offset = 0): boolean {
  if (bytes.length < offset + prefix.length) return false;
  return prefix.every((b, i) => bytes[offset + i] === b);
}

const ascii = (text: string): number[] => [...text].map((c) => c.charCodeAt(0));

/** Whether the first bytes are those of the declared image type. */
export function hasImageMagic(bytes: Uint8Array, mediaType: ImageMediaType): boolean {
  switch (mediaType) {
    case 'image/png':
      return startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    case 'image/jpeg':
      return startsWith(bytes, [0xff, 0xd8, 0xff]);
    case 'image/gif':
      return startsWith(bytes, ascii('GIF87a')) || startsWith(bytes, ascii('GIF89a'));
    case 'image/webp':
      return startsWith(bytes, ascii('RIFF')) && startsWith(bytes, ascii('WEBP'), 8);
    default: {
      const unreachable: never = mediaType;
      return unreachable;
    }
  }
}
