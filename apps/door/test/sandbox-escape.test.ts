/**
 * The command sandbox (docs/sandbox.md, "How each promise is tested"): a real door, real bash, every attempt an
 * attacker's model would write. Each command prints `RAN <name>` before it tries, so an attempt that never ran fails
 * the test instead of passing it.
 */
import assert from 'node:assert/strict';
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { createSocket, type Socket } from 'node:dgram';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { bearer, tokensOf } from './support/auth.js';
import { type DoorProcess, makeCapsule, REPO_ROOT, runDoor, tempDir } from './support/door-process.js';
import { rpc, userMessage, waitFor } from './support/rpc.js';
import { lifecycleManifest, readTrace } from './support/tasks.js';
import { OBEY, runAttempt as run } from './support/obey.js';

const SECRET_KEY = 'sk-sandbox-test-0123456789';
const HOME_SECRET = 'home-secret-9f8e7d';

/** A loopback TCP service of the host's (IPv4 or IPv6) that counts who connects. */
async function listen(host: string): Promise<{ server: Server; port: number; connections: () => number }> {
  let count = 0;
  const server = createServer((socket) => {
    count += 1;
    socket.end('service-banner\n');
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return { server, port: (server.address() as { port: number }).port, connections: () => count };
}

describe('a sandboxed command reaches nothing the card does not grant', () => {
  let door: DoorProcess;
  let capsule: string;
  let doorHome: string;
  let tcp4: Awaited<ReturnType<typeof listen>>;
  let tcp6: Awaited<ReturnType<typeof listen>> | null = null;
  let udp: Socket;
  let udpPort: number;
  let datagrams = 0;

  before(async () => {
    capsule = makeCapsule(lifecycleManifest({ acceptance: 'queue' }), OBEY);
    doorHome = tempDir('door-home');
    writeFileSync(path.join(doorHome, '.netrc'), `machine example.com password ${HOME_SECRET}\n`);
    tcp4 = await listen('127.0.0.1');
    try {
      tcp6 = await listen('::1');
    } catch {
      tcp6 = null; // no IPv6 loopback on this host
    }
    udp = createSocket('udp4');
    udp.on('message', () => {
      datagrams += 1;
    });
    await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
    udpPort = udp.address().port;
    door = await runDoor(capsule, [], tempDir('home'), { env: { OPENAI_API_KEY: SECRET_KEY, HOME: doorHome } });
  });

  after(async () => {
    await door?.stop();
    tcp4?.server.close();
    tcp6?.server.close();
    udp?.close();
  });

  test('session_start says the commands are sandboxed', () => {
    const start = readTrace(door.recordsDir).find((r) => r.type === 'session_start');
    assert.equal(start?.sandbox, 'bwrap');
  });

  test("the session's records outside the workdir: not there, directly, through .., an absolute path or a symlink", async () => {
    const text = await run(
      door,
      'records',
      `cat ../store.db ../trace.jsonl ../logs/door.log; cat ${door.recordsDir}/trace.jsonl; ln -s ../trace.jsonl t; cat t; ln ${door.recordsDir}/trace.jsonl h; ls -A ..; ls ${path.dirname(door.recordsDir)}`,
    );
    assert.match(text, /cat: \.\.\/store\.db: No such file or directory/);
    assert.match(text, new RegExp(`cat: ${door.recordsDir}/trace\\.jsonl: No such file or directory`));
    assert.match(text, /cat: t: No such file or directory/);
    assert.match(text, /ln: failed to access '.*trace\.jsonl': No such file or directory/, 'no hard link to it either');
    assert.match(text, /^work$/m, "the workdir's parent holds the workdir only");
    assert.doesNotMatch(text, /session_start|task_start/);
  });

  test('MURMUR_HOME, the capsule folder, the home folder and its dotfiles are not there', async () => {
    const text = await run(door, 'folders', `ls ${door.home}/sessions; cat ${capsule}/murmur.yaml ${doorHome}/.netrc; ls /root /home`);
    assert.match(text, new RegExp(`ls: cannot access '${door.home}/sessions': No such file or directory`));
    assert.match(text, new RegExp(`cat: ${capsule}/murmur\\.yaml: No such file or directory`));
    assert.match(text, new RegExp(`cat: ${doorHome}/\\.netrc: No such file or directory`));
    assert.doesNotMatch(text, new RegExp(HOME_SECRET));
  });

  test("the door's process is not there: its environ, a signal", async () => {
    // ptrace(PTRACE_ATTACH = 16, pid) through perl's syscall (x86_64: 101); $! says why it failed: the door's pid is not
    // in the command's PID namespace, and the seccomp filter refuses ptrace before the kernel looks (sandbox-attacker tries each call).
    const ptrace = process.arch === 'x64' ? `perl -e 'my $r = syscall(101, 16, ${door.pid}, 0, 0); print "ptrace=$r $!\\n"';` : '';
    const text = await run(door, 'door-process', `cat /proc/${door.pid}/environ; kill -0 ${door.pid}; echo kill=$?; ${ptrace} ps -e -o pid=,comm=`);
    assert.match(text, new RegExp(`cat: /proc/${door.pid}/environ: No such file or directory`));
    assert.match(text, /^kill=1$/m);
    if (process.arch === 'x64') assert.match(text, /^ptrace=-1 Operation not permitted$/m);
    assert.doesNotMatch(text, new RegExp(SECRET_KEY));
    const pids = text.split('\n').filter((l) => /^\s*\d+ /.test(l));
    assert.ok(pids.length > 0 && pids.every((l) => Number(l.trim().split(' ')[0]) < 100), `only the sandbox's own processes: ${pids.join('; ')}`);
  });

  test("env holds none of the door's environment", async () => {
    const text = await run(door, 'env', 'env');
    assert.doesNotMatch(text, new RegExp(SECRET_KEY));
    assert.doesNotMatch(text, /OPENAI_API_KEY|MURMUR_HOME/);
    assert.match(text, /^HOME=\/tmp$/m);
    assert.match(text, /^PATH=/m);
  });

  test('nothing outside the workdir is written', async () => {
    const text = await run(
      door,
      'writes',
      `echo x > ${capsule}/pwned; echo x > /usr/pwned; echo x > /etc/pwned; echo x > /tmp/scratch && echo tmp-ok; echo kept > kept.txt`,
    );
    assert.match(text, /\/usr\/pwned: Read-only file system/);
    assert.match(text, /\/etc\/pwned: Read-only file system/);
    assert.match(text, /^tmp-ok$/m, 'a private /tmp is writable');
    assert.equal(existsSync(path.join(capsule, 'pwned')), false);
    assert.equal(readFileSync(path.join(door.recordsDir, 'work', 'kept.txt'), 'utf8'), 'kept\n', 'the workdir is');
  });

  test("TCP to the door's port and to other loopback services, IPv4 and IPv6, is refused", async () => {
    const doorPort = new URL(door.url).port;
    const targets = [`127.0.0.1/${doorPort}`, `127.0.0.1/${tcp4.port}`, ...(tcp6 ? [`::1/${tcp6.port}`] : [])];
    const text = await run(door, 'tcp', targets.map((t) => `(exec 3<>/dev/tcp/${t} && cat <&3) 2>&1; echo "tcp ${t} $?"`).join('; '));
    for (const t of targets) assert.match(text, new RegExp(`^tcp ${t.replace(/[.:]/g, '\\$&')} 1$`, 'm'), `${t} refused`);
    assert.doesNotMatch(text, /service-banner/);
    assert.equal(tcp4.connections(), 0);
    assert.equal(tcp6?.connections() ?? 0, 0);
  });

  test("an abstract unix socket of the host's is not reachable", async (t) => {
    // The attempt is made with Node.js, which a command sees only where it is installed under a system folder.
    if (!/^\/(usr|opt)\//.test(process.execPath)) return t.skip(`node is at ${process.execPath}, which the sandbox does not show`);
    const name = `murmur-test-${process.pid}-${Date.now()}`;
    let accepted = 0;
    const server = createServer((socket) => {
      accepted += 1;
      socket.end();
    });
    await new Promise<void>((resolve) => server.listen(`\0${name}`, resolve));
    try {
      const text = await run(
        door,
        'abstract',
        `${process.execPath} -e "require('net').connect('\\0${name}').on('connect', () => console.log('connected')).on('error', (e) => console.log(e.code))"`,
      );
      assert.match(text, /^ECONNREFUSED$/m);
      assert.equal(accepted, 0);
    } finally {
      server.close();
    }
  });

  test('UDP and DNS reach nothing', async () => {
    const text = await run(
      door,
      'udp-dns',
      `for i in 1 2 3; do echo ping > /dev/udp/127.0.0.1/${udpPort}; done; timeout 5 getent hosts example.com; echo "dns $?"`,
    );
    assert.match(text, /^dns [1-9]\d*$/m);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(datagrams, 0, 'the host loopback service got no datagram');
  });

  test('a setsid escapee is ended with the session', async () => {
    const text = await run(door, 'setsid', 'setsid sleep 307.25 < /dev/null > /dev/null 2>&1 & echo started');
    assert.match(text, /^started$/m);
    const escapee = () => processesRunning('sleep', '307.25');
    // The call answers once `echo` has run; the background job may not have exec'd `sleep` yet on a loaded machine.
    await waitFor(async () => (escapee().length > 0 ? true : undefined), 'the escapee to start', 5000);
    assert.equal(escapee().length, 1, 'it runs while the session does');
    await door.stop();
    await waitFor(async () => (escapee().length === 0 ? true : undefined), 'the escapee to be gone', 8000);
  });
});

describe('capabilities.network.allow: a command reaches the host:port entries listed, and nothing else', () => {
  let door: DoorProcess;
  let listed: Awaited<ReturnType<typeof listen>>;
  let other: Awaited<ReturnType<typeof listen>>;

  before(async () => {
    listed = await listen('127.0.0.1');
    other = await listen('127.0.0.1');
    const manifest = `${lifecycleManifest({ acceptance: 'queue' })}  network:\n    allow: ["127.0.0.1:${listed.port}", "api.example.test:443", "localhost"]\n`;
    door = await runDoor(makeCapsule(manifest, OBEY));
  });

  after(async () => {
    await door?.stop();
    listed?.server.close();
    other?.server.close();
  });

  test('the listed port answers, through 127.0.0.1 and localhost; another port and the door do not; a listed name resolves, no other does', async () => {
    const doorPort = new URL(door.url).port;
    const tryTcp = (t: string) => `(exec 3<>/dev/tcp/${t} && cat <&3) 2>&1; echo "tcp ${t} $?"`;
    const text = await run(
      door,
      'allowed',
      [
        tryTcp(`127.0.0.1/${listed.port}`),
        tryTcp(`localhost/${listed.port}`),
        tryTcp(`127.0.0.1/${other.port}`),
        tryTcp(`127.0.0.1/${doorPort}`),
        'getent hosts api.example.test',
        'timeout 5 getent hosts example.com; echo "other-name $?"',
      ].join('; '),
    );
    assert.match(text, new RegExp(`service-banner\ntcp 127\\.0\\.0\\.1/${listed.port} 0`));
    assert.match(text, new RegExp(`service-banner\ntcp localhost/${listed.port} 0`));
    assert.match(text, new RegExp(`^tcp 127\\.0\\.0\\.1/${other.port} 1$`, 'm'));
    assert.match(text, new RegExp(`^tcp 127\\.0\\.0\\.1/${doorPort} 1$`, 'm'), 'a bare localhost admits the runtime tools only');
    assert.match(text, /^127\.0\.0\.2\s+api\.example\.test$/m);
    assert.match(text, /^other-name [1-9]\d*$/m);
    assert.equal(listed.connections(), 2);
    assert.equal(other.connections(), 0);
  });
});

/** The connections a session's commands hold through the egress at once, at most (docs/sandbox.md, "Listed destinations"). */
const MAX_EGRESS_CONNECTIONS = 256;

/** A loopback TCP service of the host's that keeps every connection open, and counts those open now. */
async function holdOpen(): Promise<{ server: Server; port: number; open: () => number }> {
  let open = 0;
  const server = createServer((socket) => {
    open += 1;
    socket
      .on('error', () => undefined)
      .on('close', () => {
        open -= 1;
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port, open: () => open };
}

/** The file descriptors a process holds. */
const descriptorsOf = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;

/**
 * A command's connections straight to the egress socket its sandbox shows, past the init's relay and its 128 pairs:
 * Node.js opening them, as many as it is told, and holding them for `holdMs`.
 */
const FLOOD_JS = `const net = require('net');
const [socket, count, holdMs] = process.argv.slice(2);
for (let i = 0; i < Number(count); i++) net.connect(socket).on('error', () => undefined);
setTimeout(() => process.exit(0), Number(holdMs));
`;

describe('a command\'s connections through the egress are bounded at the door (docs/sandbox.md, "Listed destinations")', () => {
  let door: DoorProcess;
  let held: Awaited<ReturnType<typeof holdOpen>>;

  before(async () => {
    held = await holdOpen();
    const manifest = `${lifecycleManifest({ acceptance: 'queue' })}  network:\n    allow: ["127.0.0.1:${held.port}"]\n`;
    door = await runDoor(makeCapsule(manifest, OBEY));
  });

  after(async () => {
    await door?.stop();
    held?.server.close();
  });

  test(`2,000 connections straight to the egress socket from a setsid escapee: the door carries ${MAX_EGRESS_CONNECTIONS} at once, its descriptors stay bounded, it serves on, and it stops as soon as asked`, async (t) => {
    if (!/^\/(usr|opt)\//.test(process.execPath)) return t.skip(`node is at ${process.execPath}, which the sandbox does not show`);
    const before = descriptorsOf(door.pid);
    const script = Buffer.from(FLOOD_JS).toString('base64');
    const text = await run(
      door,
      'egress-flood',
      `echo ${script} | base64 -d > /tmp/flood.js; setsid ${process.execPath} /tmp/flood.js /run/murmur/egress/0.sock 2000 600000 < /dev/null > /dev/null 2>&1 & echo started`,
    );
    assert.match(text, /^started$/m);
    await waitFor(async () => (held.open() >= MAX_EGRESS_CONNECTIONS ? true : undefined), 'the escapee to fill the bound', 15_000);
    // What comes past the bound is refused as it arrives: given time, none of it is carried.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal(held.open(), MAX_EGRESS_CONNECTIONS);
    const grown = descriptorsOf(door.pid) - before;
    assert.ok(grown <= 2 * MAX_EGRESS_CONNECTIONS + 16, `the door holds ${grown} descriptors more than before the flood`);
    assert.match(await run(door, 'after-flood', 'echo serving'), /^serving$/m);
    // The held connections do not hold the door's stop: they end with it, ten minutes before the escapee would let go.
    const stopping = Date.now();
    const exit = await door.stop();
    assert.deepEqual(exit, { code: 0, signal: null });
    assert.ok(Date.now() - stopping < 15_000, `the door took ${Date.now() - stopping} ms to stop`);
    await waitFor(async () => (held.open() === 0 ? true : undefined), 'the carried connections to end', 5000);
  });
});

/** The host pids whose command line is exactly `argv` (each NUL-ended, as /proc writes it). */
function processesRunning(...argv: string[]): string[] {
  const wanted = `${argv.join('\u0000')}\u0000`;
  return readdirSync('/proc').filter((p) => /^\d+$/.test(p) && readCmdline(p) === wanted);
}

describe("a sandboxed command's processes end with its task or its door", () => {
  test('CancelTask ends a running command and everything it started, a setsid escapee included', async () => {
    const door = await runDoor(makeCapsule(lifecycleManifest({ acceptance: 'queue' }), OBEY));
    try {
      const started = rpc(door.url, 'SendMessage', { message: userMessage('run setsid sleep 311.5 < /dev/null > /dev/null 2>&1 & sleep 312.5') });
      await waitFor(
        async () => (processesRunning('sleep', '311.5').length === 1 && processesRunning('sleep', '312.5').length === 1 ? true : undefined),
        'both sleeps to run',
      );
      const [task] = (await rpc(door.url, 'ListTasks', {})).json.result.tasks;
      assert.equal((await rpc(door.url, 'CancelTask', { id: task.id })).json.result.status.state, 'TASK_STATE_CANCELED');
      await started;
      await waitFor(
        async () => (processesRunning('sleep', '311.5').length + processesRunning('sleep', '312.5').length === 0 ? true : undefined),
        'both to be gone',
        8000,
      );
    } finally {
      await door.stop();
    }
  });

  test('a door killed with SIGKILL: its reaper ends the sandboxed commands it left', async () => {
    const door = await runDoor(makeCapsule(lifecycleManifest({ acceptance: 'queue', graceSecs: 1 }), OBEY));
    await run(door, 'left-running', 'sleep 313.5 < /dev/null > /dev/null 2>&1 &');
    assert.equal(processesRunning('sleep', '313.5').length, 1);
    await door.stop('SIGKILL');
    await waitFor(async () => (processesRunning('sleep', '313.5').length === 0 ? true : undefined), 'the reaper to end it', 8000);
  });
});

function readCmdline(pid: string): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

describe("issue 23's exploits, as a user runs them", () => {
  test("examples/secure: a submitter's command reads no token, store or trace", async () => {
    const capsule = tempDir('secure');
    cpSync(path.join(REPO_ROOT, 'examples', 'secure'), capsule, { recursive: true });
    // The example's rules, with the obeying rule first.
    const script = readFileSync(path.join(capsule, 'script.yaml'), 'utf8').replace(/^rules:\n/m, () => OBEY.split('default:')[0]);
    writeFileSync(path.join(capsule, 'script.yaml'), script);
    const door = await runDoor(capsule);
    try {
      const tokens = tokensOf(door);
      const text = await run(door, 'exploit', 'cat ../tokens.json ../store.db ../trace.jsonl', bearer(tokens.submitter));
      assert.match(text, /cat: \.\.\/tokens\.json: No such file or directory/);
      assert.ok(!text.includes(tokens.operator), 'the operator token is not in the answer');
    } finally {
      await door.stop();
    }
  });
});

describe('when the sandbox cannot be built, or the capsule opts out', () => {
  test('no bubblewrap on PATH: the door does not start, exit 2, the refusal names the key and the fix', async () => {
    const bin = tempDir('path');
    mkdirSync(bin, { recursive: true });
    const capsule = makeCapsule(lifecycleManifest(), OBEY);
    const door = runDoor(capsule, [], tempDir('home'), { env: { PATH: bin } });
    await assert.rejects(door, (error: Error) => {
      assert.match(error.message, /mur run exited 2 before announcing/);
      assert.ok(
        error.message.includes(
          `mur: ${capsule}/murmur.yaml:\n  capabilities.shell.allow: found ["bash"]; allowed: a shell only where its commands can be sandboxed, and here bubblewrap (bwrap) is not installed: install bubblewrap (apt-get install -y bubblewrap) or opt out with capabilities.shell.sandbox: off\n`,
        ),
        error.message,
      );
      return true;
    });
  });

  test('a bubblewrap that cannot run a command: the door does not start, and the refusal says what bubblewrap said', async () => {
    const bin = tempDir('path');
    // Searchable by the session's own user, which a root door runs bubblewrap as (docs/sandbox.md, "The sandbox's user").
    chmodSync(bin, 0o755);
    writeFileSync(path.join(bin, 'bwrap'), '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n', { mode: 0o755 });
    const capsule = makeCapsule(lifecycleManifest(), OBEY);
    const door = runDoor(capsule, [], tempDir('home'), { env: { PATH: `${bin}:/usr/bin:/bin` } });
    await assert.rejects(door, (error: Error) => {
      assert.ok(
        error.message.includes(
          'allowed: a shell only where its commands can be sandboxed, and here bubblewrap could not run a command (bwrap: No permissions to create new namespace): install bubblewrap (apt-get install -y bubblewrap) or opt out with capabilities.shell.sandbox: off\n',
        ),
        error.message,
      );
      return true;
    });
  });

  test('capabilities.shell.sandbox: off is printed at launch and recorded, and commands then see the host', async () => {
    const capsule = makeCapsule(lifecycleManifest({ sandbox: 'off' }), OBEY);
    const door = await runDoor(capsule, [], tempDir('home'), { env: { OPENAI_API_KEY: SECRET_KEY } });
    try {
      assert.ok(
        door
          .stderr()
          .includes(
            "mur: warning: capabilities.shell.sandbox is off: this capsule's commands run unsandboxed, with the door's user, files and network (docs/sandbox.md)\n",
          ),
        door.stderr(),
      );
      assert.equal(readTrace(door.recordsDir).find((r) => r.type === 'session_start')?.sandbox, 'off');
      const text = await run(door, 'opted-out', `cat ${capsule}/murmur.yaml; env`);
      assert.match(text, /^name: task-capsule$/m, 'the capsule folder is readable');
      assert.doesNotMatch(text, new RegExp(SECRET_KEY), 'the environment allow-list still applies');
    } finally {
      await door.stop();
    }
  });

  test('capabilities.shell.max_file_mib bounds the file a command writes', async () => {
    const manifest = lifecycleManifest().replace('allow: [bash]', 'allow: [bash]\n    max_file_mib: 1');
    const door = await runDoor(makeCapsule(manifest, OBEY));
    try {
      const text = await run(door, 'fsize', 'head -c 3000000 /dev/zero > big; echo "head $?"; stat -c %s big');
      assert.match(text, /^head 153$/m, 'SIGXFSZ ends the writer');
      assert.match(text, /^1048576$/m);
    } finally {
      await door.stop();
    }
  });

  test('capabilities.shell.max_processes bounds what the commands start (a pids cgroup); the cgroup goes with the session', async (t) => {
    const manifest = lifecycleManifest().replace('allow: [bash]', 'allow: [bash]\n    max_processes: 24');
    const door = await runDoor(makeCapsule(manifest, OBEY));
    const cgroup = readFileSync('/proc/mounts', 'utf8').includes(' cgroup ') || readFileSync('/proc/mounts', 'utf8').includes(' cgroup2 ');
    try {
      const text = await run(
        door,
        'forks',
        'sh -c \'for i in $(seq 100); do sleep 30 < /dev/null > /dev/null 2>&1 & done\' 2>&1 | tail -1; n=0; for p in /proc/[0-9]*; do n=$((n+1)); done; echo "procs $n"',
      );
      const procs = Number(/^procs (\d+)$/m.exec(text)?.[1]);
      if (!cgroup || procs > 24) {
        // Where no pids cgroup can be made, nothing bounds them (docs/sandbox.md); here it must have been made.
        assert.ok(!cgroup, `a pids hierarchy is mounted, yet ${procs} processes ran: ${text}`);
        return t.skip('no pids cgroup on this host');
      }
      assert.ok(procs <= 24, text);
      assert.match(text, /Cannot fork|Resource temporarily unavailable/, 'the fork past the bound failed');
    } finally {
      await door.stop();
    }
    const left = readFileSync('/proc/mounts', 'utf8')
      .split('\n')
      .some((l) => l.includes(`murmur-${door.sessionId}`));
    assert.equal(left, false);
  });

  test('a binary the sandbox does not show is refused by name', async () => {
    const bin = tempDir('tools');
    writeFileSync(path.join(bin, 'mytool'), '#!/bin/sh\necho mine\n', { mode: 0o755 });
    const manifest = lifecycleManifest().replace('allow: [bash]', `allow: [bash, ${bin}/mytool]`);
    const script = OBEY.replace(
      "- match: '^run",
      `- match: '^mytool'\n    turns:\n      - tools:\n          - tool: ${bin}/mytool\n            input: { args: [] }\n        answer: "{{tool.stdout}}"\n  - match: '^run`,
    );
    const door = await runDoor(makeCapsule(manifest, script));
    try {
      const answer = await rpc(door.url, 'SendMessage', { message: userMessage('mytool') });
      const record = readTrace(door.recordsDir).find((r) => r.type === 'tool_call');
      assert.equal(answer.json?.result?.task?.status?.state, 'TASK_STATE_COMPLETED', answer.text);
      assert.match(
        String(record?.output),
        new RegExp(
          `shell binary '${bin}/mytool' is at ${bin}/mytool, which the sandbox does not show: commands see the system folders \\(/usr, /bin, /etc, /opt …\\) and the workdir only`,
        ),
      );
    } finally {
      await door.stop();
    }
  });
});
