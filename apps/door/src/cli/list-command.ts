import { parseArgs } from 'node:util';
import { readLock } from '../artifacts/murmur-lock.js';
import { artifactCommand, capsuleDirOf } from './artifact-command-support.js';
import { withUsage } from './client-command-support.js';
import { printOut } from './terminal-lines.js';
import { UsageError } from './usage-error.js';

export const LIST_USAGE = 'usage: mur list [--capsule DIR] [--json]   what murmur.lock pins';

/** mur list: what murmur.lock pins, one artifact a line; the runtime-provided tools never appear (seed 004). */
export function list(argv: string[]): Promise<number> {
  const { values, positionals } = withUsage(LIST_USAGE, () =>
    parseArgs({ args: argv, allowPositionals: true, options: { capsule: { type: 'string' }, json: { type: 'boolean', default: false } } }),
  );
  if (positionals.length > 0) throw new UsageError(LIST_USAGE);
  return artifactCommand(async () => {
    const lock = await readLock(capsuleDirOf(values.capsule));
    const pins = Object.entries(lock.artifacts).sort(([a], [b]) => (a < b ? -1 : 1));
    if (values.json) {
      const artifacts = pins.map(([artifact, p]) => ({
        artifact,
        version: p.version,
        runtime: p.runtime,
        origin: p.origin,
        fetchedFrom: p.fetched_from,
        digest: p.digest,
      }));
      const scopes = Object.entries(lock.scopes).map(([scope, s]) => ({ scope, source: s.source ?? null, owner: s.owner ?? null }));
      printOut(JSON.stringify({ artifacts, scopes }));
      return 0;
    }
    if (pins.length === 0) {
      printOut('murmur.lock pins no artifact');
      return 0;
    }
    const rows = [
      ['NAME', 'VERSION', 'RUNTIME', 'ORIGIN', 'FROM', 'DIGEST'],
      ...pins.map(([name, p]) => [name, p.version, p.runtime, p.origin, p.fetched_from, p.digest]),
    ];
    const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
    for (const row of rows) printOut(row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  '));
    return 0;
  });
}
