/**
 * Test hosts on one machine (docs/console.md, "Across hosts"): network namespaces this test run makes itself, each
 * with a veth whose other end joins a bridge in the root namespace, on a private 10.x /24 of its own. The root
 * namespace (where the test process and Chromium run) holds the bridge's address, `.1`; the hosts `.2`, `.3`, …
 * Nothing but these addresses is ever a target. Needs root and iproute2's `ip`; `netnsUnavailable()` says why not.
 *
 * Names carry the creating process's pid (base 36), so a run cleans up what a killed run of its own left behind, and
 * two runs never share a name: namespaces `murmur-e2e-<pid>-<r>-<host>`, the bridge `mb-<pid>-<r>`, veths
 * `mv-<pid>-<r><i>` (an interface name has at most 15 characters).
 */
import { type ChildProcess, type SpawnOptions, spawn, spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';

export interface TestHost {
  /** The name the test gave it. */
  name: string;
  /** Its network namespace (`ip netns exec <ns> …`). */
  ns: string;
  /** Its IPv4 address on the test network. */
  address: string;
}

export interface TestNetwork {
  hosts: readonly TestHost[];
  host(name: string): TestHost;
  /** The root namespace's address on the test network (the bridge's): where Chromium and the test process are. */
  rootAddress: string;
  /** Spawns `ip netns exec <ns> <command> <args>`: the command runs on that host (its own process, not a shell). */
  spawnOn(host: TestHost, command: string, args: readonly string[], options?: SpawnOptions): ChildProcess;
  /** Kills what still runs in the namespaces and deletes them, the veths and the bridge. Safe to call twice. */
  remove(): void;
}

const PREFIX = 'murmur-e2e-';
/** Every `ip` call is bounded: a hung one fails the setup rather than the suite. */
const IP_TIMEOUT_MS = 10_000;

function ip(args: readonly string[]): { ok: boolean; out: string; err: string } {
  const result = spawnSync('ip', args, { encoding: 'utf8', timeout: IP_TIMEOUT_MS });
  return { ok: result.status === 0, out: result.stdout ?? '', err: (result.stderr ?? '') || (result.error?.message ?? '') };
}

function ipOrThrow(args: readonly string[]): string {
  const result = ip(args);
  if (!result.ok) throw new Error(`ip ${args.join(' ')}: ${result.err.trim()}`);
  return result.out;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Why test hosts cannot be made here (not root, no `ip`, namespaces not permitted), or null when they can. */
export function netnsUnavailable(): string | null {
  if (process.platform !== 'linux') return `network namespaces are Linux only (this is ${process.platform})`;
  if (process.getuid?.() !== 0) return 'network namespaces need root (ip netns add), and this test runs as a normal user';
  const version = spawnSync('ip', ['-V'], { encoding: 'utf8', timeout: IP_TIMEOUT_MS });
  if (version.error || version.status !== 0) return "iproute2's `ip` is missing (apt-get install iproute2)";
  const probe = `${PREFIX}${process.pid.toString(36)}-probe`;
  const added = ip(['netns', 'add', probe]);
  if (!added.ok) return `ip netns add is not permitted here: ${added.err.trim()}`;
  ip(['netns', 'del', probe]);
  return null;
}

/** Deletes the namespaces and links a run whose process is gone left behind (a SIGKILLed test worker). */
function sweepStale(): void {
  const ownerOf = (name: string, pattern: RegExp): number | null => {
    const match = pattern.exec(name);
    return match ? Number.parseInt(match[1], 36) : null;
  };
  for (const line of ip(['netns', 'list']).out.split('\n')) {
    const name = line.split(' ')[0];
    const owner = ownerOf(name, /^murmur-e2e-([0-9a-z]+)-/);
    if (owner !== null && !alive(owner)) ip(['netns', 'del', name]);
  }
  for (const line of ip(['-o', 'link', 'show']).out.split('\n')) {
    const name = /^\d+:\s+([^:@\s]+)/.exec(line)?.[1] ?? '';
    const owner = ownerOf(name, /^m[bv]-([0-9a-z]+)-/);
    if (owner !== null && !alive(owner)) ip(['link', 'del', name]);
  }
}

/** A 10.x.y.0/24 no route of this machine covers yet: 10.200–249.*.*. At most 20 draws. */
function freeSubnet(): string {
  const routes = ip(['-4', 'route', 'show', 'table', 'all']).out + ip(['-4', '-o', 'addr', 'show']).out;
  for (let i = 0; i < 20; i++) {
    const prefix = `10.${randomInt(200, 250)}.${randomInt(0, 256)}`;
    if (!routes.includes(`${prefix}.`)) return prefix;
  }
  throw new Error('no free 10.x.y.0/24 for the test network after 20 draws');
}

/**
 * Makes one namespace per name, joined by a bridge in the root namespace. On any failure what was made is removed
 * before the error is thrown; `remove()` also runs when the process exits, so a failed test leaves nothing behind.
 */
export function makeTestNetwork(names: readonly string[]): TestNetwork {
  if (names.length === 0 || names.length > 9) throw new Error('a test network has 1 to 9 hosts');
  sweepStale();
  const id = `${process.pid.toString(36)}-${randomInt(36 * 36)
    .toString(36)
    .padStart(2, '0')}`;
  const prefix = freeSubnet();
  const bridge = `mb-${id}`;
  const hosts: TestHost[] = names.map((name, i) => ({ name, ns: `${PREFIX}${id}-${name}`, address: `${prefix}.${i + 2}` }));
  const made = { bridge: false, namespaces: [] as string[], veths: [] as string[] };
  let removed = false;
  const remove = () => {
    if (removed) return;
    removed = true;
    process.off('exit', remove);
    for (const ns of made.namespaces) {
      // What the test started there and did not stop: its own processes, in its own namespace.
      for (const pid of ip(['netns', 'pids', ns]).out.split('\n').filter(Boolean)) {
        try {
          process.kill(Number(pid), 'SIGKILL');
        } catch {
          // gone meanwhile
        }
      }
      ip(['netns', 'del', ns]);
    }
    for (const veth of made.veths) ip(['link', 'del', veth]);
    if (made.bridge) ip(['link', 'del', bridge]);
  };
  process.on('exit', remove);
  try {
    ipOrThrow(['link', 'add', bridge, 'type', 'bridge']);
    made.bridge = true;
    ipOrThrow(['addr', 'add', `${prefix}.1/24`, 'dev', bridge]);
    ipOrThrow(['link', 'set', bridge, 'up']);
    hosts.forEach((host, i) => {
      const veth = `mv-${id}${i}`;
      ipOrThrow(['netns', 'add', host.ns]);
      made.namespaces.push(host.ns);
      ipOrThrow(['link', 'add', veth, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', host.ns]);
      made.veths.push(veth);
      ipOrThrow(['link', 'set', veth, 'master', bridge, 'up']);
      ipOrThrow(['-n', host.ns, 'addr', 'add', `${host.address}/24`, 'dev', 'eth0']);
      ipOrThrow(['-n', host.ns, 'link', 'set', 'eth0', 'up']);
      ipOrThrow(['-n', host.ns, 'link', 'set', 'lo', 'up']);
    });
  } catch (error) {
    remove();
    throw error;
  }
  return {
    hosts,
    host: (name) => {
      const found = hosts.find((h) => h.name === name);
      if (!found) throw new Error(`no test host named ${name}`);
      return found;
    },
    rootAddress: `${prefix}.1`,
    spawnOn: (host, command, args, options = {}) => spawn('ip', ['netns', 'exec', host.ns, command, ...args], options),
    remove,
  };
}
