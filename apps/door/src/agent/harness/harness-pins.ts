import { existsSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, shown } from '../../config/config-problem.js';
import type { HarnessName } from '../../manifest/manifest.schema.js';

/**
 * The harness versions this runtime was tested with, and where each ships its native executable (docs/harness.md,
 * "Installing the harnesses"). The harnesses are installed with `--ignore-scripts`, so a wrapper package's `bin` is
 * still the small launcher its install script would have swapped for the real program: the door runs the platform
 * package's own executable instead, never that launcher.
 */
interface HarnessPin {
  name: HarnessName;
  version: string;
  /** The npm spec of the platform package for `arch` (`x64`, `arm64`). */
  spec(arch: string): string;
  /** The folder bound into the sandbox, relative to the install folder. */
  binDir(arch: string): string;
  /** The executable, relative to binDir. */
  executable: string;
}

const CODEX_TRIPLE: Record<string, string> = { x64: 'x86_64-unknown-linux-musl', arm64: 'aarch64-unknown-linux-musl' };

/** @public scripts/ensure-harness.mjs imports it from dist. */
export const HARNESS_PINS: Record<HarnessName, HarnessPin> = {
  'claude-code': {
    name: 'claude-code',
    version: '2.1.332',
    spec: (arch) => `@anthropic-ai/claude-code-linux-${arch}@2.1.332`,
    binDir: (arch) => `node_modules/@anthropic-ai/claude-code-linux-${arch}`,
    executable: 'claude',
  },
  codex: {
    name: 'codex',
    version: '0.171.0',
    spec: (arch) => `@openai/codex@0.171.0-linux-${arch}`,
    binDir: (arch) => `node_modules/@openai/codex/vendor/${CODEX_TRIPLE[arch] ?? arch}`,
    executable: 'bin/codex',
  },
};

/** The folder a pin is installed in, under MURMUR_HARNESS_DIR. @public scripts/ensure-harness.mjs imports it from dist. */
export const installFolder = (harnessDir: string, pin: HarnessPin): string => path.join(harnessDir, `${pin.name}-${pin.version}`);

/** The exact command that installs a pin. @public scripts/ensure-harness.mjs imports it from dist. */
export const installCommand = (harnessDir: string, pin: HarnessPin, arch = process.arch): string =>
  `npm install --prefix ${installFolder(harnessDir, pin)} --no-save --ignore-scripts ${pin.spec(arch)}`;

/** Where a harness's executable is: the folder the sandbox shows at HARNESS_BIN_PATH, and the executable within it. */
export interface LocatedHarness {
  binDir: string;
  /** Relative to binDir. */
  executable: string;
}

/** A capsule whose harness is not installed does not start: the refusal names the exact command (docs/harness.md). */
class HarnessNotInstalledError extends ConfigError {
  override readonly name = 'HarnessNotInstalledError';
}

/**
 * The harness's executable: the manifest's `binary` (relative to the capsule folder), or the installed pin;
 * HarnessNotInstalledError when it is not there.
 */
export function locateHarness(name: HarnessName, binary: string | null, harnessDir: string, manifestFile: string, arch = process.arch): LocatedHarness {
  if (binary !== null) {
    const resolved = path.resolve(path.dirname(manifestFile), binary);
    if (!existsSync(resolved)) {
      throw new HarnessNotInstalledError(manifestFile, [
        { path: 'inference.harness.binary', found: `${shown(binary)} (no file at ${resolved})`, allowed: 'an executable file' },
      ]);
    }
    return { binDir: path.dirname(resolved), executable: path.basename(resolved) };
  }
  const pin = HARNESS_PINS[name];
  const binDir = path.join(installFolder(harnessDir, pin), pin.binDir(arch));
  const executable = path.join(binDir, pin.executable);
  if (!existsSync(executable)) {
    throw new HarnessNotInstalledError(manifestFile, [
      {
        path: 'inference.harness.name',
        found: `${shown(name)} (not installed: no ${executable})`,
        allowed: `an installed harness: ${installCommand(harnessDir, pin, arch)}`,
      },
    ]);
  }
  return { binDir, executable: pin.executable };
}
