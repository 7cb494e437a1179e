/**
 * Doors added with `mur console --door URL [--token-file F]`: doors not registered on this host (another machine's),
 * which the console shows and its proxy reaches by name. The proxy's loopback-only rule stays for everything else:
 * an added door is explicit, given by the operator who started the console, never by the browser.
 */
import { readFileSync } from 'node:fs';
import type { ConsoleAddedDoor } from '@murmur/protocol';

export interface AddedDoor extends ConsoleAddedDoor {
  protocol: 'http:' | 'https:';
  /** The host as a socket wants it (no IPv6 brackets). */
  hostname: string;
  port: number;
  /** The bearer token read from the token file, or null. Never sent to the browser. */
  token: string | null;
}

export class AddedDoorError extends Error {
  override name = 'AddedDoorError';
}

/** Reads `--door URL` (http or https, with a port or the scheme's default) and its optional token file. */
export function addedDoor(url: string, tokenFile: string | null): AddedDoor {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new AddedDoorError(`--door takes a URL such as http://10.0.0.5:41873, not '${url}'`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new AddedDoorError(`--door takes an http or https URL, not '${url}'`);
  if (parsed.username !== '' || parsed.password !== '') throw new AddedDoorError('--door takes no user name or password in the URL: use --token-file');
  const port = parsed.port === '' ? (parsed.protocol === 'https:' ? 443 : 80) : Number(parsed.port);
  let token: string | null = null;
  if (tokenFile !== null) {
    try {
      token = readFileSync(tokenFile, 'utf8')
        .trim()
        .replace(/^Bearer\s+/i, '');
    } catch (error) {
      throw new AddedDoorError(`--token-file ${tokenFile}: ${(error as Error).message}`);
    }
    if (token === '' || /\s/.test(token)) throw new AddedDoorError(`--token-file ${tokenFile} holds no single token`);
  }
  return {
    key: `${parsed.hostname}:${port}`,
    url: `${parsed.protocol}//${parsed.host}`,
    hasToken: token !== null,
    protocol: parsed.protocol,
    hostname: parsed.hostname.replace(/^\[(.*)\]$/, '$1'),
    port,
    token,
  };
}
