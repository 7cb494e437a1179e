import type { CommandDestination } from '../../egress/command-destinations.js';
import { commandDestinations } from '../../egress/command-destinations.js';

/** The loopback names a base URL may use for the machine itself; the sandbox relays them as `localhost`. */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The provider's `host:port` from a harness's base URL (docs/harness.md, "The boundary"): what the sandbox relays for it. */
export function providerDestination(baseUrl: string): CommandDestination {
  const url = new URL(baseUrl);
  const host = LOOPBACK.has(url.hostname.toLowerCase()) ? 'localhost' : url.hostname.toLowerCase();
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  return { host, port };
}

/** The first port from which the tool server is looked for inside a run's sandbox, where nothing else listens. */
const TOOL_SERVER_PORTS_FROM = 46_201;

/** The port the tool server answers on inside the sandbox: one no relayed loopback destination takes. */
export function toolServerPort(allow: readonly string[], provider: CommandDestination): number {
  const taken = new Set([...commandDestinations(allow), provider].filter((d) => d.host === 'localhost').map((d) => d.port));
  let port = TOOL_SERVER_PORTS_FROM;
  while (taken.has(port)) port += 1;
  return port;
}
