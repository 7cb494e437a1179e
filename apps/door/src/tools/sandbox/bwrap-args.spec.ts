import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { bwrapArgs, INIT_PATH, launchArgs, stagedPath, visibleInSandbox } from './bwrap-args.js';

const workdir = '/srv/home/me/.murmur/records/proj/ses_1/work';
const layout = {
  workdir,
  hidden: ['/srv/home/me/.murmur', '/srv/home/me/proj', '/usr/share/murmur-home'],
  sources: { workdir, helper: '/repo/apps/door/dist/native/murmur-sandbox' },
  maxFileMib: 4,
  maxTmpMib: 8,
};
const MIB = 1024 * 1024;

/** The `--flag value` pairs before the command, as [flag, value…] entries of one flag. */
const valuesOf = (args: string[], flag: string, arity = 1) => args.flatMap((a, i) => (a === flag ? [args.slice(i + 1, i + 1 + arity).join(' ')] : []));

test('every namespace, no nested user namespace, the init as PID 1; the system read-only, the workdir the one writable bind, the root read-only last', () => {
  const args = bwrapArgs(layout, '/usr/bin/bash', ['-c', 'echo hi']);
  assert.deepEqual(args.slice(0, 5), ['--unshare-all', '--unshare-user', '--disable-userns', '--die-with-parent', '--as-pid-1']);
  assert.ok(!args.includes('--share-net'));
  const sep = args.indexOf('--');
  const options = args.slice(0, sep);
  assert.deepEqual(valuesOf(options, '--bind', 2), [`${workdir} ${workdir}`], 'nothing else is bound writable');
  for (const source of valuesOf(options, '--ro-bind', 2))
    assert.match(
      source,
      /^\/(usr|bin|sbin|lib|lib32|lib64|libx32|etc|opt) \/\1$|^\/repo\/apps\/door\/dist\/native\/murmur-sandbox \/run\/murmur\/init$|^\/dev\/null \/proc\/key(s|-users)$/,
    );
  assert.deepEqual(
    options.slice(-9),
    ['--bind', workdir, workdir, '--chdir', workdir, '--remount-ro', '/dev', '--remount-ro', '/'],
    'the workdir is bound after every cover, and the root made read-only last',
  );
  assert.deepEqual(args.slice(sep), ['--', INIT_PATH, 'init', '--fsize', String(4 * MIB), '--', '/usr/bin/bash', '-c', 'echo hi']);
});

test("a private /proc without the keyrings' lists, a /dev with a bounded /dev/shm, a bounded /tmp (capabilities.shell.max_tmp_mib)", () => {
  const args = bwrapArgs(layout, '/usr/bin/true', []);
  const at = args.indexOf('--proc');
  assert.deepEqual(args.slice(at, at + 2), ['--proc', '/proc']);
  const keyLists = ['/proc/keys', '/proc/key-users'].filter((f) => existsSync(f));
  assert.deepEqual(
    valuesOf(args, '--ro-bind', 2).filter((pair) => pair.startsWith('/dev/null ')),
    keyLists.map((f) => `/dev/null ${f}`),
    "the keyrings' lists are covered",
  );
  const dev = args.indexOf('--dev');
  assert.deepEqual(args.slice(dev, dev + 10), [
    '--dev',
    '/dev',
    '--size',
    String(64 * MIB),
    '--tmpfs',
    '/dev/shm',
    '--size',
    String(8 * MIB),
    '--tmpfs',
    '/tmp',
  ]);
});

test('a hidden folder under a system root is covered with an empty tmpfs; one elsewhere is never bound at all', () => {
  const args = bwrapArgs(layout, '/usr/bin/true', []);
  assert.deepEqual(valuesOf(args, '--tmpfs'), ['/dev/shm', '/tmp', '/usr/share/murmur-home']);
  assert.ok(args.indexOf('/usr/share/murmur-home') > args.indexOf('/usr'), 'the cover comes after the bind it covers');
});

test('what a command can see: the workdir and the system folders, less every hidden folder', () => {
  assert.equal(visibleInSandbox(`${workdir}/a/b`, layout), true);
  assert.equal(visibleInSandbox('/usr/bin/bash', layout), true);
  assert.equal(visibleInSandbox('/usr/share/murmur-home/records', layout), false);
  assert.equal(visibleInSandbox('/srv/home/me/.murmur/records/proj/ses_1/tokens.json', layout), false);
  assert.equal(visibleInSandbox('/root/.pyenv/shims/python3', layout), false);
  assert.equal(visibleInSandbox('/usrlocal/bin/x', layout), false, 'a prefix is not a folder');
  assert.equal(visibleInSandbox('/usr/../root/x', layout), false, 'resolved before it is judged');
});

test('with listed destinations: the egress pieces are shown after the system, and the init gets one --relay each', () => {
  const extraBinds = [
    { source: '/tmp/murmur-egress-x/hosts', target: '/etc/hosts', writable: false },
    { source: '/tmp/murmur-egress-x', target: '/run/murmur/egress', writable: false },
  ];
  const relays = ['127.0.0.1:8080=/run/murmur/egress/0.sock', '::1:8080=/run/murmur/egress/0.sock'];
  const args = bwrapArgs({ ...layout, extraBinds, relays }, '/usr/bin/true', []);
  const sep = args.indexOf('--');
  assert.deepEqual(args.slice(sep + 5), ['--relay', relays[0], '--relay', relays[1], '--', '/usr/bin/true']);
  assert.ok(args.indexOf('/etc/hosts') > args.lastIndexOf('/etc'), "the listed names' hosts file covers the system's");
});

test("the launcher: the session's cgroups joined, and for a root door the staged paths and the session's user before bubblewrap", () => {
  const bwrap = bwrapArgs(layout, '/usr/bin/true', []);
  assert.deepEqual(launchArgs({ joins: [], staged: new Map(), user: null }, '/usr/bin/bwrap', bwrap), ['launch', '--', '/usr/bin/bwrap', ...bwrap]);
  const staged = new Map([
    ['init', '/repo/murmur-sandbox'],
    ['work', workdir],
  ]);
  assert.deepEqual(launchArgs({ joins: ['/sys/fs/cgroup/pids/murmur-ses_1/cgroup.procs'], staged, user: 1_000_123_456 }, '/usr/bin/bwrap', ['x']), [
    'launch',
    '--join',
    '/sys/fs/cgroup/pids/murmur-ses_1/cgroup.procs',
    '--stage-root',
    '/dev/shm',
    '--stage',
    'init=/repo/murmur-sandbox',
    '--stage',
    `work=${workdir}`,
    '--uid',
    '1000123456',
    '--gid',
    '1000123456',
    '--',
    '/usr/bin/bwrap',
    'x',
  ]);
  assert.equal(stagedPath('work'), '/dev/shm/work');
});
