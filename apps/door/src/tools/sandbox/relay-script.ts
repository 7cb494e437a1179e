import { splice } from './splice.js';

/**
 * The network relay inside a command's sandbox, run by Node.js (the door's own binary, shown read-only): it listens
 * on each listed destination's address inside the command's network namespace and carries every connection, byte
 * for byte, to that destination's unix socket, which the door serves (command-egress.ts). Its one argument is
 * `<host>:<port>=<socket>` pairs, comma-separated; it prints `ready` once every one listens (or could not).
 */
export const RELAY_SCRIPT = `import net from 'node:net';
const splice = ${splice.toString()};
const specs = process.argv[2].split(',').map((pair) => {
  const [listen, socket] = pair.split('=');
  const colon = listen.lastIndexOf(':');
  return { host: listen.slice(0, colon), port: Number(listen.slice(colon + 1)), socket };
});
let waiting = specs.length;
const settled = () => {
  waiting -= 1;
  if (waiting === 0) process.stdout.write('ready\\n');
};
for (const spec of specs) {
  const server = net.createServer((inner) => splice(inner, net.connect(spec.socket)));
  server.once('error', settled);
  server.listen(spec.port, spec.host, settled);
}
`;
