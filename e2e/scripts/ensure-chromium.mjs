// Playwright here drives Debian's Chromium (downloading browsers is not possible on this machine kind): `npm test`
// its headless shell (package chromium-headless-shell, `ensure-chromium.mjs chromium-headless-shell`), `npm run
// measure` the whole browser an operator runs (package chromium, the default). Installs the package when its binary
// is missing and we are root with apt-get; otherwise stops with the exact fix. CHROMIUM_PATH, when set, names the
// binary both use, and nothing is installed.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const PACKAGES = { chromium: '/usr/bin/chromium', 'chromium-headless-shell': '/usr/bin/chromium-headless-shell' };
const pkg = process.argv[2] ?? 'chromium';
if (!(pkg in PACKAGES)) {
  console.error(`e2e: ensure-chromium takes one of ${Object.keys(PACKAGES).join(', ')}, not ${pkg}`);
  process.exit(2);
}
const path = process.env.CHROMIUM_PATH ?? PACKAGES[pkg];
if (existsSync(path)) process.exit(0);

const fix = `sudo apt-get update && sudo apt-get install -y ${pkg}`;
const canInstall = process.getuid?.() === 0 && existsSync('/usr/bin/apt-get') && !process.env.CHROMIUM_PATH;
if (!canInstall) {
  console.error(`e2e: no Chromium at ${path}.\nInstall Debian's ${pkg}:   ${fix}\nor point CHROMIUM_PATH at a Chromium binary.`);
  process.exit(1);
}
console.error(`e2e: no Chromium at ${path}; installing Debian's ${pkg} with apt-get (about 30 s)…`);
try {
  execFileSync('apt-get', ['update'], { stdio: ['ignore', 'ignore', 'inherit'] });
  execFileSync('apt-get', ['install', '-y', '--no-install-recommends', pkg], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
} catch (error) {
  console.error(`e2e: apt-get install ${pkg} failed: ${error.message}\nInstall it by hand: ${fix.replace(/sudo /g, '')}`);
  process.exit(1);
}
if (!existsSync(path)) {
  console.error(`e2e: ${pkg} installed, but ${path} is still missing; set CHROMIUM_PATH`);
  process.exit(1);
}
