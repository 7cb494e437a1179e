import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bwrapArgs, visibleInSandbox, WRAPPER_NAME, WRAPPER_SCRIPT } from './bwrap-args.js';

const layout = { workdir: '/srv/home/me/.murmur/records/proj/ses_1/work', hidden: ['/srv/home/me/.murmur', '/srv/home/me/proj', '/usr/share/murmur-home'], asRoot: false, maxFileMib: 4 };

test('every namespace, the system read-only, private /tmp, /proc and /dev, the workdir the one writable bind', () => {
  const args = bwrapArgs(layout, '/usr/bin/bash', ['-c', 'echo hi']);
  assert.equal(args[0], '--unshare-all');
  assert.ok(!args.includes('--share-net'));
  const sep = args.indexOf('--');
  const pairs = args.slice(0, sep);
  assert.deepEqual(pairs.slice(pairs.indexOf('--proc'), pairs.indexOf('--proc') + 6), ['--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp']);
  const binds = pairs.flatMap((a, i) => (a === '--bind' ? [pairs[i + 1]] : []));
  assert.deepEqual(binds, [layout.workdir], 'nothing else is bound writable');
  for (const [i, a] of pairs.entries()) if (a === '--ro-bind') assert.match(pairs[i + 1], /^\/(usr|bin|sbin|lib|lib32|lib64|libx32|etc|opt)$/);
  assert.deepEqual(pairs.slice(-5), ['--bind', layout.workdir, layout.workdir, '--chdir', layout.workdir], 'the workdir is bound last, after every cover');
  assert.deepEqual(args.slice(sep), ['--', '/bin/sh', '-c', WRAPPER_SCRIPT, WRAPPER_NAME, '8192', 'none', '/usr/bin/bash', '-c', 'echo hi']);
});

test('a hidden folder under a system root is covered with an empty tmpfs; one elsewhere is never bound at all', () => {
  const args = bwrapArgs(layout, '/usr/bin/true', []);
  const covered = args.flatMap((a, i) => (a === '--tmpfs' ? [args[i + 1]] : []));
  assert.deepEqual(covered, ['/tmp', '/usr/share/murmur-home']);
  assert.ok(args.indexOf('/usr/share/murmur-home') > args.indexOf('/usr'), 'the cover comes after the bind it covers');
});

test('capabilities are dropped by bubblewrap itself only when the door is root', () => {
  assert.ok(!bwrapArgs(layout, '/usr/bin/true', []).includes('--cap-drop'));
  const root = bwrapArgs({ ...layout, asRoot: true }, '/usr/bin/true', []);
  assert.deepEqual(root.slice(root.indexOf('--cap-drop'), root.indexOf('--cap-drop') + 2), ['--cap-drop', 'ALL']);
});

test('what a command can see: the workdir and the system folders, less every hidden folder', () => {
  assert.equal(visibleInSandbox(`${layout.workdir}/a/b`, layout), true);
  assert.equal(visibleInSandbox('/usr/bin/bash', layout), true);
  assert.equal(visibleInSandbox('/usr/share/murmur-home/records', layout), false);
  assert.equal(visibleInSandbox('/srv/home/me/.murmur/records/proj/ses_1/tokens.json', layout), false);
  assert.equal(visibleInSandbox('/root/.pyenv/shims/python3', layout), false);
  assert.equal(visibleInSandbox('/usrlocal/bin/x', layout), false, 'a prefix is not a folder');
  assert.equal(visibleInSandbox('/usr/../root/x', layout), false, 'resolved before it is judged');
});

test("the wrapper's status goes to fd 3, which the command does not get", () => {
  assert.match(WRAPPER_SCRIPT, /^"\$@" 3>&- 0<&4 4<&- & c=\$!$/m);
  assert.match(WRAPPER_SCRIPT, /echo "exit \$s" >&3; exec 3>&-/);
});

test('with listed destinations: the relay starts first, and its pieces are shown after everything but the workdir', () => {
  const extraBinds = [{ source: '/tmp/murmur-egress-x/hosts', target: '/etc/hosts', writable: false }];
  const args = bwrapArgs({ ...layout, extraBinds, relaySpec: '127.0.0.1:8080=/run/murmur/egress/0.sock' }, '/usr/bin/true', []);
  const sep = args.indexOf('--');
  assert.deepEqual(args.slice(sep + 6), ['relay', '/run/murmur/node', '/run/murmur/relay.mjs', '127.0.0.1:8080=/run/murmur/egress/0.sock', '/usr/bin/true']);
  assert.ok(args.indexOf('/etc/hosts') > args.lastIndexOf('/etc'), "the listed names' hosts file covers the system's");
  assert.match(WRAPPER_SCRIPT, /kill -9 "\$r"; exit 0/, 'the wrapper ends the relay before it goes');
});

test('the wrapper, run by sh: the exit on fd 3, the command kept off fd 3, and a relay that did not start said on stderr', async () => {
  const { spawnSync } = await import('node:child_process');
  const run = (relay: string[], command: string) =>
    spawnSync('/bin/sh', ['-c', WRAPPER_SCRIPT, WRAPPER_NAME, '8', ...relay, '/bin/sh', '-c', command], { stdio: ['ignore', 'pipe', 'pipe', 'pipe'], encoding: 'utf8', timeout: 5000 });
  const plain = run(['none'], 'echo out; echo fake-exit >&3; exit 7');
  assert.equal(plain.stdout, 'out\n');
  assert.match(String(plain.output[3]), /^started \d+\nexit 7\n$/, 'only the wrapper writes fd 3');
  assert.match(plain.stderr, /3: Bad file descriptor/);
  const fed = spawnSync('/bin/sh', ['-c', WRAPPER_SCRIPT, WRAPPER_NAME, '8', 'none', '/bin/sh', '-c', 'cat; ls /proc/self/fd'], { input: 'a hook input', stdio: ['pipe', 'pipe', 'pipe', 'pipe'], encoding: 'utf8', timeout: 5000 });
  assert.ok(fed.stdout.startsWith('a hook input'), "the command reads the wrapper's standard input");
  assert.ok(!fed.stdout.slice('a hook input'.length).split('\n').includes('4'), 'and holds no fd 4 of it');
  const noRelay = run(['relay', '/bin/false', '/nonexistent.mjs', 'spec'], 'exit 0');
  assert.equal(noRelay.stderr, 'murmur-sandbox: the network relay did not start: no listed destination is reachable\n');
  assert.match(String(noRelay.output[3]), /exit 0\n$/);
});

test('a command writes no file past capabilities.shell.max_file_mib: the write fails, SIGXFSZ ends the writer', async () => {
  const { spawnSync } = await import('node:child_process');
  const { mkdtempSync, statSync } = await import('node:fs');
  const dir = mkdtempSync('/tmp/murmur-fsize-');
  // 8 blocks of 512 bytes: 4 KiB, as max_file_mib: 1 would be 2,048 blocks.
  const run = spawnSync('/bin/sh', ['-c', WRAPPER_SCRIPT, WRAPPER_NAME, '8', 'none', '/bin/sh', '-c', `head -c 10000 /dev/zero > ${dir}/big; echo "head $?"`], {
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    encoding: 'utf8',
    timeout: 5000,
  });
  assert.match(run.stdout, /^head 153$/m, '128 + SIGXFSZ (25)');
  assert.equal(statSync(`${dir}/big`).size, 4096);
});
