/**
 * The console's responsiveness at 2,000 frames/s is measured in a real browser by the Playwright suite
 * (e2e/tests/perf.spec.ts), which writes its figures to e2e/test-results/perf.json; its views' render times on a
 * session of 10,000 tasks by e2e/tests/perf-views.spec.ts, in e2e/test-results/perf-views.json. `npm run bench` runs
 * those specs first (`npm run measure -w @murmur/e2e`, alone); this reads the files' figures, with when they were
 * measured, when the files exist.
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** dist/bench/console-perf.js → the repository root's e2e/test-results/perf.json; BENCH_CONSOLE_PERF_FILE overrides it. */
const DEFAULT_FILE = fileURLToPath(new URL('../../../../e2e/test-results/perf.json', import.meta.url));
/** The views' file beside it; BENCH_CONSOLE_VIEWS_FILE overrides it. */
const DEFAULT_VIEWS_FILE = fileURLToPath(new URL('../../../../e2e/test-results/perf-views.json', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

export interface ConsolePerf {
  /** The file, relative to the repository root when inside it. */
  file: string;
  /** When the figures were written (the file's mtime, ISO 8601); null when there is no file. */
  measuredAt: string | null;
  /** The file's leaves as "dotted.key" and value, in file order. */
  figures: [string, string][];
  /** The file's JSON as read, for the JSON line. */
  raw: unknown;
  /** Why the file could not be used, when it exists but is not JSON. */
  problem: string | null;
}

const MAX_FIGURES = 40;

function leaves(value: unknown, prefix: string, out: [string, string][]): void {
  if (out.length >= MAX_FIGURES) return;
  if (value === null || typeof value !== 'object') {
    out.push([prefix || '(value)', typeof value === 'number' ? String(Math.round(value * 1000) / 1000) : String(value)]);
    return;
  }
  if (Array.isArray(value) && value.every((v) => v === null || typeof v !== 'object')) {
    const shown = value.slice(0, 8).map((v) => (typeof v === 'number' ? String(Math.round(v * 1000) / 1000) : String(v)));
    out.push([prefix || '(value)', `[${shown.join(', ')}${value.length > 8 ? `, … ${value.length} in all` : ''}]`]);
    return;
  }
  for (const [key, child] of Object.entries(value)) leaves(child, prefix ? `${prefix}.${key}` : key, out);
}

export function readConsolePerf(file = process.env.BENCH_CONSOLE_PERF_FILE?.trim() || DEFAULT_FILE): ConsolePerf {
  const shown = file.startsWith(REPO_ROOT) ? path.relative(REPO_ROOT, file) : file;
  let mtime: Date;
  try {
    mtime = statSync(file).mtime;
  } catch {
    return { file: shown, measuredAt: null, figures: [], raw: null, problem: null };
  }
  try {
    const raw: unknown = JSON.parse(readFileSync(file, 'utf8'));
    const figures: [string, string][] = [];
    leaves(raw, '', figures);
    return { file: shown, measuredAt: mtime.toISOString(), figures, raw, problem: null };
  } catch (error) {
    return { file: shown, measuredAt: mtime.toISOString(), figures: [], raw: null, problem: error instanceof Error ? error.message : String(error) };
  }
}

/** The console's views on a session of 10,000 tasks (perf-views.json), read as perf.json is. */
export const readConsoleViewsPerf = (file = process.env.BENCH_CONSOLE_VIEWS_FILE?.trim() || DEFAULT_VIEWS_FILE): ConsolePerf => readConsolePerf(file);
