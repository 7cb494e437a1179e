import type { Socket } from 'node:net';
import { readAllowEntry } from './allow-entries.js';

/** A destination a command may reach: one `host:port` entry of capabilities.network.allow (docs/sandbox.md, "Listed destinations"). */
export interface CommandDestination {
  /** As listed, lowercase; `localhost` for either loopback name. */
  host: string;
  port: number;
  /**
   * Answered by the door itself instead of carried to `host:port`: each connection is handed over (a harness's tool
   * server, docs/harness.md), so the destination has no address on the host at all.
   */
  serve?: (socket: Socket) => void;
}

/** A host name or an IPv4 address: what the sandbox's /etc/hosts and relay can stand for. */
const HOST = /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/;

/**
 * The entries of capabilities.network.allow a sandboxed command reaches: each `host:port`. A bare host or `host:*`
 * admits the runtime tools' requests only: a command reaches no port it does not name.
 */
export function commandDestinations(allow: readonly string[]): CommandDestination[] {
  const out: CommandDestination[] = [];
  for (const entry of allow) {
    const read = readAllowEntry(entry);
    if (read === null || read.port === 'any' || !HOST.test(read.host)) continue;
    const { host, port } = read;
    if (!out.some((d) => d.host === host && d.port === port)) out.push({ host, port });
  }
  return out;
}
