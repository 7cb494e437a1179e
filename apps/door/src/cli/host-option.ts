import { type AddressInfo, createServer } from 'node:net';
import { UsageError } from './usage-error.js';

const EVERY_ADDRESS = new Set(['0.0.0.0', '::']);

/**
 * `--host H` of `mur run` and `mur run --roster` (docs/cli.md, "--host"): one address of this machine that a door can
 * listen on and announce to its callers. Checked before anything is staged or forked, by listening on it once
 * (port 0) and closing at once.
 */
export async function checkHost(host: string): Promise<void> {
  if (host.trim() === '') throw new UsageError(`--host takes one address of this machine (an IP address or a host name), not '${host}'`);
  const server = createServer();
  let address: AddressInfo;
  try {
    address = await new Promise<AddressInfo>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host, port: 0 }, () => resolve(server.address() as AddressInfo));
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') throw new UsageError(`--host ${host}: no address is known for this name (${code})`);
    if (code === 'EADDRNOTAVAIL') throw new UsageError(`--host ${host} is not an address of this machine, so no door can listen on it`);
    throw error;
  }
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (EVERY_ADDRESS.has(address.address)) {
    throw new UsageError(`--host ${host} is every address of this machine, not one: a door announces its address to its callers, so give one of them`);
  }
}
