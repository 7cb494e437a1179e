// Builds the sandbox's helper (native/murmur-sandbox.c, docs/sandbox.md) into dist/native/murmur-sandbox with the
// machine's C compiler: its seccomp filter takes the system call numbers of the machine it is built on. A machine
// without a compiler gets one installed when we are root with apt-get (as ensure-bubblewrap.mjs does for bubblewrap);
// otherwise the build stops with the exact fix.
import { execFileSync, spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const door = fileURLToPath(new URL('..', import.meta.url));
const source = path.join(door, 'native', 'murmur-sandbox.c');
const target = path.join(door, 'dist', 'native', 'murmur-sandbox');
const FIX = 'sudo apt-get update && sudo apt-get install -y gcc libc6-dev';

const onPath = (name) =>
  (process.env.PATH ?? '').split(':').some((dir) => {
    try {
      accessSync(path.join(dir || '.', name), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });

function compiler() {
  const named = process.env.CC;
  if (named) return named;
  return ['cc', 'gcc', 'clang'].find(onPath) ?? null;
}

if (existsSync(target) && statSync(target).mtimeMs >= statSync(source).mtimeMs) process.exit(0);

let cc = compiler();
if (cc === null) {
  if (process.getuid?.() !== 0 || !existsSync('/usr/bin/apt-get')) {
    console.error(`build: the sandbox helper needs a C compiler, and none is installed (cc, gcc, clang).\nInstall one:   ${FIX}`);
    process.exit(1);
  }
  console.error("build: no C compiler for the sandbox helper; installing Debian's gcc with apt-get…");
  try {
    execFileSync('apt-get', ['update'], { stdio: ['ignore', 'ignore', 'inherit'] });
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'gcc', 'libc6-dev'], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  } catch (error) {
    console.error(`build: apt-get install gcc failed: ${error.message}\nInstall it by hand:   ${FIX}`);
    process.exit(1);
  }
  cc = compiler();
  if (cc === null) {
    console.error(`build: gcc installed, but no cc is on PATH.\nInstall it by hand:   ${FIX}`);
    process.exit(1);
  }
}
mkdirSync(path.dirname(target), { recursive: true });
const partial = `${target}.${process.pid}.part`;
const flags = ['-O2', '-Wall', '-Wextra', '-Werror', '-std=gnu11', '-o', partial, source];
// Linked statically where the C library allows it: each command execs the helper twice (launcher, init), and a
// static binary skips the dynamic loader both times. Dynamically otherwise.
let run = spawnSync(cc, ['-static', ...flags], { stdio: ['ignore', 'ignore', 'pipe'] });
if (run.error || run.status !== 0) run = spawnSync(cc, flags, { stdio: 'inherit' });
if (run.error || run.status !== 0) {
  console.error(`build: ${cc} could not build ${path.relative(door, source)}${run.error ? `: ${run.error.message}` : ''}`);
  process.exit(1);
}
renameSync(partial, target);
