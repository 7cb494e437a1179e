// Playwright here drives Debian's Chromium (downloading browsers is not possible on this machine kind).
// Installs it when missing and we are root with apt-get; otherwise stops with the exact fix.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const path = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
if (existsSync(path)) process.exit(0);

const canInstall = process.getuid?.() === 0 && existsSync('/usr/bin/apt-get') && !process.env.CHROMIUM_PATH;
if (!canInstall) {
  console.error(
    `e2e: no Chromium at ${path}.\n` +
      `Install Debian's Chromium:   sudo apt-get update && sudo apt-get install -y chromium\n` +
      'or point CHROMIUM_PATH at a Chromium binary.',
  );
  process.exit(1);
}
console.error(`e2e: no Chromium at ${path}; installing Debian's chromium with apt-get (about 30 s)…`);
try {
  execFileSync('apt-get', ['update'], { stdio: ['ignore', 'ignore', 'inherit'] });
  execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
} catch (error) {
  console.error(`e2e: apt-get install chromium failed: ${error.message}\nInstall it by hand: apt-get update && apt-get install -y chromium`);
  process.exit(1);
}
if (!existsSync(path)) {
  console.error(`e2e: chromium installed, but ${path} is still missing; set CHROMIUM_PATH`);
  process.exit(1);
}
