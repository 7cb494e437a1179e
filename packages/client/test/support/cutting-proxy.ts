/**
 * A TCP proxy that cuts every connection a fixed time after the door's answer starts: a flaky network between client
 * and door. The time runs from the answer's first bytes, not from the connection's opening, so a loaded machine that is
 * slow to answer cuts the stream it means to cut, never the request before its answer (which the client reports as a
 * failed request, not a dropped stream).
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface CuttingProxy {
  url: string;
  /** Connections accepted so far. */
  readonly accepted: number;
  close(): Promise<void>;
}

export async function startCuttingProxy(target: string, cutAfterMs: number): Promise<CuttingProxy> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<net.Socket>();
  let accepted = 0;
  const server = net.createServer((client) => {
    accepted += 1;
    const upstream = net.connect(Number(port), hostname);
    sockets.add(client).add(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    let cut: NodeJS.Timeout | undefined;
    upstream.once('data', () => {
      cut = setTimeout(() => {
        client.destroy();
        upstream.destroy();
      }, cutAfterMs);
    });
    const close = () => {
      clearTimeout(cut);
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', close).on('error', () => {});
    upstream.on('close', close).on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get accepted() {
      return accepted;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
