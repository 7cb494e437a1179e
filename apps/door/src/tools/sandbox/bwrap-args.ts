import { existsSync, lstatSync, readlinkSync } from 'node:fs';
import path from 'node:path';

/** The system folders a command sees, read-only: each bound as it is, or made again as the symlink it is. */
const SYSTEM_ROOTS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt'] as const;

/** Where the sandbox holds the helper that runs as its init, and the egress sockets (docs/sandbox.md). */
export const INIT_PATH = '/run/murmur/init';
export const EGRESS_SOCKETS_PATH = '/run/murmur/egress';
/** Where a native artifact's folder is shown, read-only, to the command that runs it (docs/artifacts.md). */
export const ARTIFACT_PATH = '/run/murmur/artifact';

/** Where a root door's launcher shows bubblewrap the host paths it binds, in a mount namespace of its own. */
const STAGE_ROOT = '/dev/shm';

/** /proc's lists of the kernel's keys, which every process of a uid may read. */
const KEYRING_LISTS = ['/proc/keys', '/proc/key-users'];

/** The size of every command's /dev/shm, in MiB. */
const DEV_SHM_MIB = 64;

/** A file or folder of the host's that the sandbox shows at another path. */
export interface ExtraBind {
  source: string;
  target: string;
  writable: boolean;
}

/** Where bubblewrap finds what it binds: the host paths, or the launcher's staged copies of them (a root door). */
interface BindSources {
  workdir: string;
  helper: string;
}

export interface BwrapLayout {
  /** The only folder a command may write, bound at its own path. */
  workdir: string;
  /** Folders a command must not see even where a system root holds them (MURMUR_HOME, the capsule folder, HOME). */
  hidden: readonly string[];
  sources: BindSources;
  /** Shown at their targets, after everything else (the egress sockets, the listed names' /etc/hosts). */
  extraBinds?: readonly ExtraBind[];
  /** The init's `<ip>:<port>=<socket>` relays, when commands may reach listed destinations. */
  relays?: readonly string[];
  /** The largest file a command may write, in MiB (capabilities.shell.max_file_mib). */
  maxFileMib: number;
  /** The size of each command's /tmp, in MiB (capabilities.shell.max_tmp_mib). */
  maxTmpMib: number;
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
const MIB = 1024 * 1024;

/** Whether a command in the sandbox sees `file` (its folder is a system root, and no hidden folder covers it). */
export function visibleInSandbox(file: string, layout: Pick<BwrapLayout, 'hidden' | 'workdir'>): boolean {
  const resolved = path.resolve(file);
  if (inside(resolved, layout.workdir)) return true;
  if (layout.hidden.some((h) => inside(resolved, h))) return false;
  return SYSTEM_ROOTS.some((root) => inside(resolved, root));
}

/**
 * bubblewrap's arguments for one command (docs/sandbox.md, "How"): new user (no nested one), mount, PID, network, IPC,
 * UTS and cgroup namespaces; the system read-only; a private /proc, a read-only /dev with a bounded /dev/shm, a bounded
 * /tmp; the workdir the one writable folder; the root made read-only last; then the init, as PID 1, which runs
 * `binary` with `args`. bubblewrap ends the sandbox when the door that started it dies.
 */
export function bwrapArgs(layout: BwrapLayout, binary: string, args: readonly string[]): string[] {
  const out = ['--unshare-all', '--unshare-user', '--disable-userns', '--die-with-parent', '--as-pid-1'];
  for (const root of SYSTEM_ROOTS) out.push(...rootArgs(root));
  out.push('--proc', '/proc');
  // The kernel's keyrings are not namespaced: what /proc lists of them is covered (the filter refuses the calls).
  for (const file of KEYRING_LISTS) if (existsSync(file)) out.push('--ro-bind', '/dev/null', file);
  out.push('--dev', '/dev', '--size', String(DEV_SHM_MIB * MIB), '--tmpfs', '/dev/shm');
  out.push('--size', String(layout.maxTmpMib * MIB), '--tmpfs', '/tmp');
  // A hidden folder under a system root is covered by an empty one; elsewhere it is simply never bound.
  for (const hidden of layout.hidden) if (SYSTEM_ROOTS.some((root) => inside(hidden, root))) out.push('--tmpfs', hidden);
  out.push('--ro-bind', layout.sources.helper, INIT_PATH);
  for (const bind of layout.extraBinds ?? []) out.push(bind.writable ? '--bind' : '--ro-bind', bind.source, bind.target);
  out.push('--bind', layout.sources.workdir, layout.workdir, '--chdir', layout.workdir);
  out.push('--remount-ro', '/dev', '--remount-ro', '/');
  const relays = (layout.relays ?? []).flatMap((relay) => ['--relay', relay]);
  out.push('--', INIT_PATH, 'init', '--fsize', String(layout.maxFileMib * MIB), ...relays, '--', binary, ...args);
  return out;
}

/** The launcher's part, before bubblewrap's (docs/sandbox.md, "How"): the cgroups it joins, and, for a root door, the paths it stages and the user it becomes. */
export interface LaunchPlan {
  joins: readonly string[];
  /** `name` → host path, shown to bubblewrap at STAGE_ROOT/<name>; empty unless the door is root. */
  staged: ReadonlyMap<string, string>;
  /** The session's own uid (and gid), when the door is root. */
  user: number | null;
}

/** `murmur-sandbox launch …` then `-- <bwrap> <bwrap args>`. */
export function launchArgs(plan: LaunchPlan, bwrap: string, bwrapArguments: readonly string[]): string[] {
  const out = ['launch'];
  for (const file of plan.joins) out.push('--join', file);
  if (plan.staged.size > 0) out.push('--stage-root', STAGE_ROOT);
  for (const [name, source] of plan.staged) out.push('--stage', `${name}=${source}`);
  if (plan.user !== null) out.push('--uid', String(plan.user), '--gid', String(plan.user));
  return [...out, '--', bwrap, ...bwrapArguments];
}

/** Where bubblewrap finds a staged path. */
export const stagedPath = (name: string): string => `${STAGE_ROOT}/${name}`;
