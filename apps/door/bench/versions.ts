/** Versions of what was measured, as installed (the raw endpoint resolves fastify exactly as the door does). */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

function versionOf(pkg: string): string {
  try {
    return (require(`${pkg}/package.json`) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

export function versions(): { node: string; fastify: string; autocannon: string } {
  return { node: process.version, fastify: versionOf('fastify'), autocannon: versionOf('autocannon') };
}
