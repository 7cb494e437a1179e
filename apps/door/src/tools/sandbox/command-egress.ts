import { chmodSync, chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { CommandDestination } from '../../egress/command-destinations.js';
import { EGRESS_SOCKETS_PATH, type ExtraBind } from './bwrap-args.js';
import { splice } from './splice.js';

/**
 * The connections one egress carries at once, at most, whatever its destinations (docs/sandbox.md, "Listed
 * destinations"). The init's relay carries 128 a command, but its sockets are in the sandbox's view, and a command can
 * connect to them itself, past the relay: without a bound of its own the door would hold two descriptors and two
 * sockets' buffers for every connection a command opened.
 */
export const MAX_EGRESS_CONNECTIONS = 256;

/**
 * The door's side of a session's command egress: one unix socket a destination, in a private folder of the host's
 * /tmp (a socket's path must stay under 108 bytes), each connection on it carried to that destination by the door.
 * Inside the sandbox the init listens for each (its `--relay`s): `localhost:<port>` on 127.0.0.1 and ::1; a named host
 * on an address of its own, 127.0.0.2 on, written in the sandbox's /etc/hosts, so the name resolves there and nothing
 * else does.
 */
export class CommandEgress {
  private constructor(
    /** The folder of the sockets and the hosts file. */
    readonly dir: string,
    private readonly servers: net.Server[],
    /** The connections carried now: ended when the egress closes, which would otherwise wait for each to end. */
    private readonly live: Set<net.Socket>,
    /** The init's `<ip>:<port>=<socket>` relays. */
    readonly relays: readonly string[],
  ) {}

  /** `user`: the session's own uid when the door is root: the folder is that user's alone, so its commands can reach the sockets in it. */
  static async open(destinations: readonly CommandDestination[], user: number | null): Promise<CommandEgress> {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'murmur-egress-'));
    const servers: net.Server[] = [];
    const relays: string[] = [];
    const names = new Map<string, string>();
    const live = new Set<net.Socket>();
    for (const [i, destination] of destinations.entries()) {
      const socket = path.join(dir, `${i}.sock`);
      const { serve } = destination;
      const server = net.createServer((inner) => {
        if (live.size >= MAX_EGRESS_CONNECTIONS) {
          inner.destroy();
          return;
        }
        live.add(inner);
        inner.once('close', () => live.delete(inner));
        if (serve) serve(inner);
        else splice(inner, net.connect({ host: destination.host === 'localhost' ? '127.0.0.1' : destination.host, port: destination.port }));
      });
      await new Promise<void>((resolve, reject) => server.once('error', reject).listen(socket, resolve));
      // Connecting needs write permission on the socket; the folder (0700) says who may reach it.
      chmodSync(socket, 0o666);
      servers.push(server);
      const inside = `${EGRESS_SOCKETS_PATH}/${i}.sock`;
      if (destination.host === 'localhost') relays.push(`127.0.0.1:${destination.port}=${inside}`, `::1:${destination.port}=${inside}`);
      else {
        if (!names.has(destination.host)) names.set(destination.host, `127.0.0.${names.size + 2}`);
        relays.push(`${names.get(destination.host)}:${destination.port}=${inside}`);
      }
    }
    writeFileSync(
      path.join(dir, 'hosts'),
      ['127.0.0.1 localhost', '::1 localhost', ...[...names].map(([name, address]) => `${address} ${name}`), ''].join('\n'),
      { mode: 0o644 },
    );
    if (user !== null) chownSync(dir, user, user);
    return new CommandEgress(dir, servers, live, relays);
  }

  /** What the sandbox shows of the folder, found by bubblewrap at `source` (the folder itself, or the launcher's staged copy). */
  binds(source: string): ExtraBind[] {
    return [
      { source: path.join(source, 'hosts'), target: '/etc/hosts', writable: false },
      { source, target: EGRESS_SOCKETS_PATH, writable: false },
    ];
  }

  async close(): Promise<void> {
    for (const connection of this.live) connection.destroy();
    await Promise.all(this.servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    rmSync(this.dir, { recursive: true, force: true });
  }
}
