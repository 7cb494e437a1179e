/** Which shell binaries this host can run: the card lists a granted binary only when it exists (seed 000). */
export interface ShellBinaries {
  has(name: string): boolean;
}

/** The port card/ reads the tool inventory through; bound in the composition root (app.module.ts). */
export const SHELL_BINARIES = Symbol('SHELL_BINARIES');
