import { fileURLToPath } from 'node:url';

/**
 * The sandbox's helper (native/murmur-sandbox.c, built by `npm run build` into dist/native/; docs/sandbox.md). This
 * file sits at the same depth under dist/ as the bundle's chunks (dist/src/paths, dist/bundle/cli), so one relative
 * path finds it from both.
 */
export const SANDBOX_HELPER = fileURLToPath(new URL('../../native/murmur-sandbox', import.meta.url));
