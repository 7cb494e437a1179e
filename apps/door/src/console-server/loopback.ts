import { isIP } from 'node:net';

/** Whether a host names this machine's loopback: 127.0.0.0/8, ::1 or localhost. The console proxies to nothing else. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) === 6) return bare === '::1' || bare === '0:0:0:0:0:0:0:1';
  return false;
}

/** Splits "127.0.0.1:41873" or "[::1]:41873" into host and port, or null when it is not host:port. */
export function parseHostPort(text: string): { host: string; port: number } | null {
  const m = /^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(text);
  if (!m) return null;
  const port = Number(m[2]);
  return port > 0 && port <= 65535 ? { host: m[1], port } : null;
}
