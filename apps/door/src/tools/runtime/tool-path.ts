import { acceptableName, MAX_PATH_BYTES } from '../../paths/plane-path.js';

/** Where the peer plane is reached, for the URLs share-file builds and fetch-peer-file accepts. */
export const PEER_PATH_PREFIX = '/resources/peer/';

/**
 * A tool's path argument (share-file's path, fetch-peer-file's save_as) as segments, under the plane's rules
 * (docs/planes.md, "Path confinement", step 3) but not percent-decoded: null when empty, absolute, over 4,096 bytes,
 * or when a segment is empty, '.', '..', or holds a separator, a control character or a percent escape.
 */
export function toolPathSegments(value: string): string[] | null {
  if (value === '' || Buffer.byteLength(value) > MAX_PATH_BYTES) return null;
  const segments = value.split('/');
  return segments.every(acceptableName) ? segments : null;
}
