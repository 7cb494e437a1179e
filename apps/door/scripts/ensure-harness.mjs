// The harnesses of inference.transport: process (docs/harness.md, "Installing the harnesses") ship native executables
// of about 400 MB inside npm packages, so they are not in the repository's npm ci. `node ensure-harness.mjs claude-code`
// (or codex) installs the pinned platform package under MURMUR_HARNESS_DIR with npm when it is missing; where it cannot,
// it stops with the exact command. Exits 0 when the harness is there. Needs `npm run build` (the pins are the door's own).
import { execFileSync } from 'node:child_process';
import { existsSync, renameSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const pinsModule = path.join(path.dirname(fileURLToPath(import.meta.url)), '../dist/src/agent/harness/harness-pins.js');
if (!existsSync(pinsModule)) {
  console.error('mur: the door is not built yet: run `npm run build` in the repository first');
  process.exit(1);
}
const { HARNESS_PINS, installCommand, installFolder } = await import(pinsModule);

const name = process.argv[2];
const pin = HARNESS_PINS[name];
if (!pin) {
  console.error(`usage: node ensure-harness.mjs ${Object.keys(HARNESS_PINS).join('|')}`);
  process.exit(2);
}
const harnessDir = process.env.MURMUR_HARNESS_DIR || path.join(os.homedir(), '.cache', 'murmur', 'harnesses');
const executable = path.join(installFolder(harnessDir, pin), pin.binDir(process.arch), pin.executable);
if (existsSync(executable)) process.exit(0);
if (process.platform !== 'linux' || !['x64', 'arm64'].includes(process.arch)) {
  console.error(`mur: ${name} ships for linux x64 and arm64 here, not ${process.platform} ${process.arch}`);
  process.exit(1);
}
const command = installCommand(harnessDir, pin);
console.error(`mur: ${name} ${pin.version} is not installed; installing it (about 400 MB): ${command}`);
// Installed into a staging folder of this process's, then moved into place in one rename: two installs at once (test
// files of a parallel run) each finish whole, and a folder holding the executable is never half an install.
const staging = path.join(harnessDir, `.staging-${process.pid}`);
const staged = installFolder(staging, pin);
let failure = null;
try {
  const [file, ...args] = installCommand(staging, pin).split(' ');
  execFileSync(file, [...args, '--no-audit', '--no-fund', '--loglevel=error'], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (!existsSync(path.join(staged, pin.binDir(process.arch), pin.executable)))
    throw new Error(`npm installed no ${pin.binDir(process.arch)}/${pin.executable}`);
  if (!existsSync(executable)) {
    // A folder without the executable is an install that stopped half-way: the staged one takes its place.
    rmSync(installFolder(harnessDir, pin), { recursive: true, force: true });
    try {
      renameSync(staged, installFolder(harnessDir, pin));
    } catch (error) {
      // Another install moved its folder into place first: that one is as good.
      if (!existsSync(executable)) throw error;
    }
  }
} catch (error) {
  failure = error;
} finally {
  rmSync(staging, { recursive: true, force: true });
}
if (failure !== null) {
  console.error(`mur: installing ${name} failed: ${failure.message}\nInstall it by hand: ${command}`);
  process.exit(1);
}
