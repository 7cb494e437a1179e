/** A TCP proxy in the test process (node:net) in front of a door, whose connections a test can drop mid-stream. */
import net from 'node:net';

export interface TcpProxy {
  /** `127.0.0.1:<port>`: give it to the console as the door's address. */
  address: string;
  /** Connections open through the proxy right now. */
  readonly open: number;
  /** Connections accepted so far. */
  readonly accepted: number;
  /** Destroys every open connection (both sides), as a network drop would; new connections are still accepted. */
  dropAll(): number;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<{ client: net.Socket; upstream: net.Socket }>();
  let accepted = 0;
  const server = net.createServer((client) => {
    accepted += 1;
    const upstream = net.connect(target.port, target.host);
    const pair = { client, upstream };
    pairs.add(pair);
    const drop = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    address: `127.0.0.1:${port}`,
    get open() {
      return pairs.size;
    },
    get accepted() {
      return accepted;
    },
    dropAll() {
      const count = pairs.size;
      for (const { client, upstream } of [...pairs]) {
        client.destroy();
        upstream.destroy();
      }
      pairs.clear();
      return count;
    },
    close() {
      for (const { client, upstream } of pairs) {
        client.destroy();
        upstream.destroy();
      }
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
