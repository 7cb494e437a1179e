import { readFileSync } from 'node:fs';

/**
 * The manners every mur command shares (docs/cli.md, "Help, version, completion"): `-h`/`--help` prints that command's
 * own usage and exits 0, `mur --version` says what runs, and a mistyped command gets the nearest one suggested.
 * Each usage is loaded from its command's module only when asked for.
 */
const USAGES: Record<string, (args: readonly string[]) => Promise<string>> = {
  run: async (args) =>
    args.some((a) => a === '--roster' || a.startsWith('--roster='))
      ? (await import('./formation-supervisor.js')).ROSTER_USAGE
      : (await import('./run-command.js')).RUN_USAGE,
  demo: async () => (await import('./demo-command.js')).DEMO_USAGE,
  console: async () => (await import('./console-command.js')).CONSOLE_USAGE,
  token: async () => (await import('./token-command.js')).TOKEN_USAGE,
  ps: async () => (await import('./ps-command.js')).PS_USAGE,
  watch: async () => (await import('./watch-command.js')).WATCH_USAGE,
  cancel: async () => (await import('./cancel-command.js')).CANCEL_USAGE,
  stop: async () => (await import('./stop-command.js')).STOP_USAGE,
  control: async () => (await import('./control-command.js')).CONTROL_USAGE,
  pack: async () => (await import('./pack-command.js')).PACK_USAGE,
  publish: async () => (await import('./publish-command.js')).PUBLISH_USAGE,
  pull: async () => (await import('./pull-command.js')).PULL_USAGE,
  list: async () => (await import('./list-command.js')).LIST_USAGE,
  remove: async () => (await import('./remove-command.js')).REMOVE_USAGE,
  completion: async () => (await import('./completion-usage.js')).COMPLETION_USAGE,
};

/** Every command mur takes, as `mur help` lists them and completion offers them. */
export const COMMANDS = [...Object.keys(USAGES), 'help', 'version'] as const;

/** Whether the command line asks for help: `-h` or `--help` before a `--`. */
export function wantsHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end < 0 ? args : args.slice(0, end)).some((a) => a === '-h' || a === '--help');
}

/** A command's own usage, or null for a command mur does not have. */
export async function usageOf(command: string, args: readonly string[]): Promise<string | null> {
  const usage = Object.hasOwn(USAGES, command) ? USAGES[command] : undefined;
  return usage === undefined ? null : usage(args);
}

/** `mur <version> (node <version>, <platform>-<arch>)`: the door package's version and what runs it. */
export function versionLine(): string {
  // This file sits at the same depth under dist/ as the bundle's chunks: ../../../package.json is apps/door's.
  const { version } = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  return `mur ${version} (node ${process.version}, ${process.platform}-${process.arch})`;
}

/** The command nearest a mistyped one (at most two edits, or one it begins), or null. */
export function nearestCommand(typed: string): string | null {
  let best: { name: string; distance: number } | null = null;
  for (const name of COMMANDS) {
    const distance = name.startsWith(typed) && typed.length >= 2 ? 1 : editDistance(typed, name);
    if (distance <= 2 && (best === null || distance < best.distance)) best = { name, distance };
  }
  return best?.name ?? null;
}

/** Levenshtein distance, with a transposition counted as one edit (Damerau, optimal string alignment). */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}
