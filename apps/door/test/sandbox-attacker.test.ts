/**
 * The sandbox against an attacker who writes the commands, with the door running as root (as npm test and CI run it)
 * and as an unprivileged user (docs/sandbox.md, "Threat model"). Each attempt prints `RAN <name>` first, so an attempt
 * that never ran fails. The attempts on host-global settings read them before and after, and put back what changed.
 */
import assert from 'node:assert/strict';
import { lstatSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type DoorProcess, makeCapsule, runDoor, tempDir } from './support/door-process.js';
import { OBEY, runAttempt as run } from './support/obey.js';
import { lifecycleManifest } from './support/tasks.js';

const AS_ROOT = process.getuid?.() === 0;
/** The unprivileged user a second door runs as (nobody), when the test can start one. */
const NOBODY = 65534;

/** System call numbers, per architecture, for the calls the filter refuses: a table of the test's own, not the helper's. */
const CALLS: Record<string, { x64: number; arm64: number; args: string }> = {
  keyctl: { x64: 250, arm64: 219, args: '0, -3, 0' }, // KEYCTL_GET_KEYRING_ID of the session keyring
  add_key: { x64: 248, arm64: 217, args: '$user, $planted, $x, 1, -3' },
  request_key: { x64: 249, arm64: 218, args: '$user, $secret, 0, 0' },
  ptrace: { x64: 101, arm64: 117, args: '16, 1, 0, 0' }, // PTRACE_ATTACH to the init
  process_vm_readv: { x64: 310, arm64: 270, args: '1, 0, 0, 0, 0, 0' },
  process_vm_writev: { x64: 311, arm64: 271, args: '1, 0, 0, 0, 0, 0' },
  pidfd_getfd: { x64: 438, arm64: 438, args: '0, 3, 0' },
  userfaultfd: { x64: 323, arm64: 282, args: '0' },
  bpf: { x64: 321, arm64: 280, args: '0, 0, 0' },
  perf_event_open: { x64: 298, arm64: 241, args: '0, 0, -1, -1, 0' },
  io_uring_setup: { x64: 425, arm64: 425, args: '1, 0' },
  kexec_load: { x64: 246, arm64: 104, args: '0, 0, 0, 0' },
  mount: { x64: 165, arm64: 40, args: '$none, $tmp, $tmpfs, 0, 0' },
  setns: { x64: 308, arm64: 268, args: '0, 0' },
  unshare_newuser: { x64: 272, arm64: 97, args: '0x10000000' },
  unshare_newns: { x64: 272, arm64: 97, args: '0x00020000' },
  clone_newuser: { x64: 56, arm64: 220, args: '0x10000011, 0, 0, 0, 0' }, // CLONE_NEWUSER | SIGCHLD
  tiocsti: { x64: 16, arm64: 29, args: '0, 0x5412, $x' },
  tiocsti_high_bits: { x64: 16, arm64: 29, args: '0, 0x100005412, $x' },
  tioclinux: { x64: 16, arm64: 29, args: '0, 0x541C, 0' },
  open_by_handle_at: { x64: 304, arm64: 265, args: '0, 0, 0' },
  init_module: { x64: 175, arm64: 105, args: '0, 0, $empty' },
};

/** One perl line a call: `<name>=<result> <errno text>`. perl's syscall() makes any call by number (strings as variables: it may write to them). */
function syscallProbes(): string {
  const arch = process.arch === 'arm64' ? 'arm64' : 'x64';
  const strings =
    'my ($user, $planted, $secret, $x, $none, $tmp, $tmpfs, $empty) = ("user", "planted", "murmur-door-secret", "x", "none", "/tmp", "tmpfs", "");';
  return [strings, ...Object.entries(CALLS).map(([name, call]) => `{ my $r = syscall(${call[arch]}, ${call.args}); print "${name}=$r $!\\n"; }`)].join(' ');
}

/** A loopback service of the host's that counts what reaches it. */
async function hostService(): Promise<{ server: Server; port: number; received: () => string; client: Socket }> {
  let received = '';
  const server = createServer((socket) => socket.on('data', (d) => (received += d.toString())));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const { connect } = await import('node:net');
  const client = connect(port, '127.0.0.1');
  await new Promise<void>((resolve) => client.once('connect', () => resolve()));
  return { server, port, received: () => received, client };
}

const CORE_PATTERN = '/proc/sys/kernel/core_pattern';

function attacks(label: string, user: number | undefined) {
  describe(`a command against the door running as ${label}`, () => {
    let door: DoorProcess;
    let secretFile: string;
    let service: Awaited<ReturnType<typeof hostService>>;
    const corePatternBefore = readFileSync(CORE_PATTERN, 'utf8');

    before(async () => {
      const dir = tempDir('inherited');
      secretFile = path.join(dir, 'secret.txt');
      writeFileSync(secretFile, 'inherited-secret-5d1c\n', { mode: 0o644 });
      service = await hostService();
      // The door's own parent leaves a host file (fd 3) and a connected host socket (fd 4) open: every command used to get them.
      const file = openSync(secretFile, 'r');
      // perl adds a key to the session keyring the door then inherits, and execs the door.
      const keyed = [
        'perl',
        '-e',
        `my @k = ("user", "murmur-door-secret", "key-payload-93ab"); syscall(${process.arch === 'arm64' ? 217 : 248}, @k, 16, -3); exec @ARGV or die`,
      ];
      door = await runDoor(makeCapsule(lifecycleManifest({ acceptance: 'queue' }), OBEY), [], tempDir('home'), {
        launcher: keyed,
        inherit: [file, service.client],
        user,
      });
    });

    after(async () => {
      await door?.stop();
      service?.client.destroy();
      service?.server.close();
      const now = readFileSync(CORE_PATTERN, 'utf8');
      if (now !== corePatternBefore) {
        writeFileSync(CORE_PATTERN, corePatternBefore);
        assert.fail(`a command changed ${CORE_PATTERN} to ${JSON.stringify(now)}; it was put back`);
      }
    });

    test('never host root: an unprivileged uid, no capability, no nested user namespace', async () => {
      const text = await run(
        door,
        'uid',
        'id -u; grep -E "^Cap(Eff|Prm|Bnd|Amb):" /proc/self/status; touch made-by-the-command; unshare -U true; echo "unshare=$?"; unshare -r true; echo "unshare-r=$?"',
      );
      const uid = Number(/^RAN uid\n(\d+)$/m.exec(text)?.[1]);
      assert.ok(Number.isInteger(uid) && uid !== 0, text);
      for (const cap of ['CapEff', 'CapPrm', 'CapBnd', 'CapAmb']) assert.match(text, new RegExp(`^${cap}:\\s+0000000000000000$`, 'm'));
      // What the kernel counts it as on the host: the owner of a file it made.
      const hostUid = lstatSync(path.join(door.recordsDir, 'work', 'made-by-the-command')).uid;
      assert.notEqual(hostUid, 0, "the command's uid is never host uid 0");
      if (user === undefined) assert.ok(hostUid >= 1_000_000_000, `a root door's commands run as the session's own user, not ${hostUid}`);
      else assert.equal(hostUid, user, "a user's door runs its commands as that user");
      assert.match(text, /^unshare=1$/m);
      assert.match(text, /^unshare-r=1$/m);
    });

    test('no host-global kernel setting can be changed: /proc/sys, /proc/sysrq-trigger; /sys is not there', async () => {
      const text = await run(
        door,
        'sysctl',
        `echo '|/tmp/pwn %p' > ${CORE_PATTERN}; echo "core=$?"; echo h > /proc/sysrq-trigger; echo "sysrq=$?"; echo 1 > /proc/sys/vm/drop_caches; echo "drop=$?"; ls /sys; echo "sys=$?"`,
      );
      assert.match(text, /^core=[12]$/m);
      assert.match(text, /^sysrq=[12]$/m);
      assert.match(text, /^drop=[12]$/m);
      assert.match(text, /^sys=2$/m);
      assert.equal(readFileSync(CORE_PATTERN, 'utf8'), corePatternBefore);
    });

    test('every call the seccomp filter refuses fails with EPERM inside (clone3 with ENOSYS)', async () => {
      const text = await run(door, 'seccomp', `perl -e '${syscallProbes()} my $c = syscall(435, 0, 0); print "clone3=$c $!\\n";'`);
      for (const name of Object.keys(CALLS)) assert.match(text, new RegExp(`^${name}=-1 Operation not permitted$`, 'm'), `${name}: ${text}`);
      assert.match(text, /^clone3=-1 Function not implemented$/m);
    });

    test("the door's keyring: not possessed, not readable, nothing planted", async () => {
      const text = await run(door, 'keyring', 'cat /proc/keys /proc/key-users; echo "keys=$?"');
      assert.match(text, /cat: \/proc\/keys: Permission denied/, 'covered');
      assert.doesNotMatch(text, /murmur-door-secret|key-payload-93ab|_ses|_uid/, '/proc lists no key (the calls themselves are refused: the seccomp test)');
    });

    test('only descriptors 0, 1 and 2: the host file and the host socket the door inherited are not there', async () => {
      const text = await run(door, 'fds', 'cat <&3; cat <&4; echo hello-host >&4; ls /proc/self/fd');
      assert.doesNotMatch(text, /inherited-secret-5d1c/);
      assert.match(text, /^RAN fds\n0\n1\n2\n3\n/, "ls's own listing descriptor is the only one past 2");
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(service.received(), '', 'nothing reached the host service through its socket');
    });

    test("the status is the command's own: the init cannot be opened, traced or signalled, and exit 7 is recorded as 7", async () => {
      const text = await run(
        door,
        'forge',
        [
          'ls /proc/1/fd; cat /proc/1/environ; cat /proc/1/mem',
          `perl -e 'my $p = syscall(434, 1, 0); my $f = syscall(438, $p, 3, 0); print "getfd=$f $!\\n"'`,
          'echo "exit 0" > /proc/1/fd/3; echo "exit 0" >&3',
          'kill -TERM 1; kill -KILL 1; kill -STOP 1',
          '(sleep 0.2; echo after-the-forgery) & wait',
          'exit 7',
        ].join('; '),
      );
      assert.match(text, /ls: cannot open directory '\/proc\/1\/fd': Permission denied/);
      assert.match(text, /cat: \/proc\/1\/environ: Permission denied/);
      assert.match(text, /^getfd=-1 Operation not permitted$/m);
      assert.match(text, /^after-the-forgery$/m, 'what it prints after the attempts is kept');
      assert.match(text, /^exit=7$/m);
    });

    test('the root and /dev are read-only; /tmp and /dev/shm are bounded; every process is the OOM killer’s first choice', async () => {
      const text = await run(
        door,
        'memory',
        'echo x > /pwned; echo "root=$?"; echo x > /dev/pwned; echo "dev=$?"; cat /proc/self/oom_score_adj; df -m /tmp /dev/shm | tail -2',
      );
      assert.match(text, /^root=[12]$/m);
      assert.match(text, /^dev=[12]$/m);
      assert.match(text, /^1000$/m);
      assert.match(text, /^tmpfs\s+1024\s/m, '/tmp: capabilities.shell.max_tmp_mib, 1024 MiB by default');
      assert.match(text, /^tmpfs\s+64\s/m, '/dev/shm: 64 MiB');
    });
  });
}

attacks('root', undefined);
if (AS_ROOT) attacks('an unprivileged user (nobody)', NOBODY);
