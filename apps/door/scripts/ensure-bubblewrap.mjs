// Every command a capsule's agent runs is sandboxed with bubblewrap (docs/sandbox.md). Installs Debian's bubblewrap
// when it is missing and we are root with apt-get; otherwise stops with the exact fix.
import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import path from 'node:path';

const onPath = () =>
  (process.env.PATH ?? '').split(':').some((dir) => {
    try {
      accessSync(path.join(dir || '.', 'bwrap'), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });

if (onPath()) process.exit(0);
const canInstall = process.getuid?.() === 0 && existsSync('/usr/bin/apt-get');
if (!canInstall) {
  console.error(
    'mur: bubblewrap (bwrap) is not installed; capsules that grant a shell sandbox every command with it.\n' +
      "Install Debian's bubblewrap:   sudo apt-get update && sudo apt-get install -y bubblewrap",
  );
  process.exit(1);
}
console.error("mur: bubblewrap (bwrap) is not installed; installing Debian's bubblewrap with apt-get…");
try {
  execFileSync('apt-get', ['update'], { stdio: ['ignore', 'ignore', 'inherit'] });
  execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'bubblewrap'], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
} catch (error) {
  console.error(`mur: apt-get install bubblewrap failed: ${error.message}\nInstall it by hand: apt-get update && apt-get install -y bubblewrap`);
  process.exit(1);
}
if (!onPath()) {
  console.error('mur: bubblewrap installed, but bwrap is still not on PATH');
  process.exit(1);
}
