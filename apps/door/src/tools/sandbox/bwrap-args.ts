import { lstatSync, readlinkSync } from 'node:fs';
import path from 'node:path';

/** The system folders a command sees, read-only: each bound as it is, or made again as the symlink it is. */
export const SYSTEM_ROOTS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt'] as const;

/** The wrapper's $0: how the door tells the sandbox's own processes from the command's (sandboxScaffold). */
export const WRAPPER_NAME = 'murmur-sandbox';

/** Where the sandbox holds the network relay's pieces (docs/sandbox.md, "Network"). */
export const RELAY_SCRIPT_PATH = '/run/murmur/relay.mjs';
export const RELAY_NODE_PATH = '/run/murmur/node';
export const EGRESS_SOCKETS_PATH = '/run/murmur/egress';

/**
 * The command's first process inside the sandbox (pid 2; bubblewrap's init is pid 1). For a capsule whose commands
 * may reach listed destinations it first starts the network relay and waits until it listens. It starts the
 * command, lets go of the output pipes, says `started <pid>` and then `exit <status>` on fd 3 when the command exits,
 * and stays while anything the command started still runs (the relay aside): bubblewrap ends the namespace, and
 * every process in it, when this exits. Only shell builtins run in the wait, so it adds no process of its own to count.
 *
 * Its arguments: the largest file the command may write (512-byte blocks, RLIMIT_FSIZE), `relay <node> <relay
 * script> <spec>` or `none`, then the command.
 */
export const WRAPPER_SCRIPT = [
  'ulimit -f "$1"; shift',
  'k=2; r=',
  'if [ "$1" = relay ]; then',
  '  mkfifo /tmp/.murmur-relay',
  '  "$2" "$3" "$4" 3>&- >/tmp/.murmur-relay 2>/dev/null </dev/null & r=$!',
  '  read ready </tmp/.murmur-relay; rm -f /tmp/.murmur-relay',
  '  [ "$ready" = ready ] || echo "murmur-sandbox: the network relay did not start: no listed destination is reachable" >&2',
  '  k=3; shift 4',
  'else shift 1; fi',
  // fd 3 is the wrapper's alone: the command cannot write a status line of its own. An asynchronous list reads
  // /dev/null unless told otherwise: the command gets the wrapper's standard input (a hook's input) through fd 4.
  'exec 4<&0',
  '"$@" 3>&- 0<&4 4<&- & c=$!',
  'exec 4<&-',
  'exec >/dev/null 2>&1 </dev/null',
  'echo "started $c" >&3',
  'wait "$c"; s=$?',
  'echo "exit $s" >&3; exec 3>&-',
  // bubblewrap's init stays while any process does: the relay is ended here, or it would keep the sandbox forever.
  'while :; do n=0; for p in /proc/[0-9]*; do n=$((n+1)); done; if [ "$n" -le "$k" ]; then [ -n "$r" ] && kill -9 "$r"; exit 0; fi; sleep 0.2; done',
].join('\n');

/** A file or folder of the host's that the sandbox shows at another path. */
export interface ExtraBind {
  source: string;
  target: string;
  writable: boolean;
}

export interface BwrapLayout {
  /** The only folder a command may write, bound at its own path. */
  workdir: string;
  /** Folders a command must not see even where a system root holds them (MURMUR_HOME, the capsule folder, HOME). */
  hidden: readonly string[];
  /** The door runs as root: bubblewrap then drops every capability itself. */
  asRoot: boolean;
  /** Shown at their targets, after everything else (the relay's pieces, the listed names' /etc/hosts). */
  extraBinds?: readonly ExtraBind[];
  /** The relay's `listen=socket` pairs, comma-separated (relay-script.ts), when commands may reach listed destinations. */
  relaySpec?: string | null;
  /** The largest file a command may write, in MiB (capabilities.shell.max_file_mib). */
  maxFileMib: number;
}

/** What a system root is on this host: a folder to bind, a symlink to make again, or nothing. */
function rootArgs(root: string): string[] {
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(root);
  } catch {
    return [];
  }
  if (stat.isSymbolicLink()) return ['--symlink', readlinkSync(root), root];
  return stat.isDirectory() ? ['--ro-bind', root, root] : [];
}

const inside = (file: string, root: string) => file === root || file.startsWith(`${root}/`);

/** Whether a command in the sandbox sees `file` (its folder is a system root, and no hidden folder covers it). */
export function visibleInSandbox(file: string, layout: Pick<BwrapLayout, 'hidden' | 'workdir'>): boolean {
  const resolved = path.resolve(file);
  if (inside(resolved, layout.workdir)) return true;
  if (layout.hidden.some((h) => inside(resolved, h))) return false;
  return SYSTEM_ROOTS.some((root) => inside(resolved, root));
}

/**
 * bubblewrap's arguments for one command (docs/sandbox.md): new user, mount, PID, network, IPC, UTS and cgroup
 * namespaces; the system read-only; a private /tmp, /proc and /dev; the workdir the one writable folder; every
 * capability dropped; then the wrapper, which runs `binary` with `args`.
 */
export function bwrapArgs(layout: BwrapLayout, binary: string, args: readonly string[]): string[] {
  const out = ['--unshare-all'];
  if (layout.asRoot) out.push('--cap-drop', 'ALL');
  for (const root of SYSTEM_ROOTS) out.push(...rootArgs(root));
  out.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp');
  // A hidden folder under a system root is covered by an empty one; elsewhere it is simply never bound.
  for (const hidden of layout.hidden) if (SYSTEM_ROOTS.some((root) => inside(hidden, root))) out.push('--tmpfs', hidden);
  for (const bind of layout.extraBinds ?? []) out.push(bind.writable ? '--bind' : '--ro-bind', bind.source, bind.target);
  out.push('--bind', layout.workdir, layout.workdir, '--chdir', layout.workdir);
  const relay = layout.relaySpec ? ['relay', RELAY_NODE_PATH, RELAY_SCRIPT_PATH, layout.relaySpec] : ['none'];
  out.push('--', '/bin/sh', '-c', WRAPPER_SCRIPT, WRAPPER_NAME, String(layout.maxFileMib * 2048), ...relay, binary, ...args);
  return out;
}
