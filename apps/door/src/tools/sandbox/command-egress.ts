import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { CommandDestination } from '../../egress/command-destinations.js';
import { EGRESS_SOCKETS_PATH, type ExtraBind, RELAY_NODE_PATH, RELAY_SCRIPT_PATH } from './bwrap-args.js';
import { RELAY_SCRIPT } from './relay-script.js';
import { splice } from './splice.js';

/** What a command's sandbox gets for its egress: the relay's spec, and the files it shows. */
export interface EgressPlan {
  relaySpec: string;
  binds: ExtraBind[];
}

/**
 * The door's side of a session's command egress: one unix socket a destination, in a private folder of the host's
 * /tmp (a socket's path must stay under 108 bytes), each connection on it carried to that destination by the door.
 * Inside the sandbox, `localhost:<port>` listens on 127.0.0.1 and ::1; a named host gets an address of its own,
 * 127.0.0.2 on, written in the sandbox's /etc/hosts, so the name resolves there and nothing else does.
 */
export class CommandEgress {
  private constructor(
    private readonly dir: string,
    private readonly servers: net.Server[],
    readonly plan: EgressPlan,
  ) {}

  static async open(destinations: readonly CommandDestination[], nodeBinary: string): Promise<CommandEgress> {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'murmur-egress-'));
    const servers: net.Server[] = [];
    const pairs: string[] = [];
    const names = new Map<string, string>();
    for (const [i, destination] of destinations.entries()) {
      const socket = path.join(dir, `${i}.sock`);
      const server = net.createServer((inner) => {
        splice(inner, net.connect({ host: destination.host === 'localhost' ? '127.0.0.1' : destination.host, port: destination.port }));
      });
      await new Promise<void>((resolve, reject) => server.once('error', reject).listen(socket, resolve));
      servers.push(server);
      const inside = `${EGRESS_SOCKETS_PATH}/${i}.sock`;
      if (destination.host === 'localhost') pairs.push(`127.0.0.1:${destination.port}=${inside}`, `::1:${destination.port}=${inside}`);
      else {
        if (!names.has(destination.host)) names.set(destination.host, `127.0.0.${names.size + 2}`);
        pairs.push(`${names.get(destination.host)}:${destination.port}=${inside}`);
      }
    }
    const hosts = path.join(dir, 'hosts');
    writeFileSync(hosts, ['127.0.0.1 localhost', '::1 localhost', ...[...names].map(([name, address]) => `${address} ${name}`), ''].join('\n'), { mode: 0o644 });
    const relay = path.join(dir, 'relay.mjs');
    writeFileSync(relay, RELAY_SCRIPT, { mode: 0o644 });
    const binds: ExtraBind[] = [
      { source: hosts, target: '/etc/hosts', writable: false },
      { source: relay, target: RELAY_SCRIPT_PATH, writable: false },
      { source: nodeBinary, target: RELAY_NODE_PATH, writable: false },
      { source: dir, target: EGRESS_SOCKETS_PATH, writable: false },
    ];
    return new CommandEgress(dir, servers, { relaySpec: pairs.join(','), binds });
  }

  async close(): Promise<void> {
    await Promise.all(this.servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    rmSync(this.dir, { recursive: true, force: true });
  }
}
