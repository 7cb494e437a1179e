// A node:test reporter beside TAP (scripts/run-tests.mjs): once every file has run it prints the files whose tests
// took longest, summed, so the next slow file shows at the end of `npm test` rather than in a 25-minute CI run.
import path from 'node:path';

const SHOWN = 12;

export default async function* fileTimes(source) {
  const byFile = new Map();
  for await (const event of source) {
    if ((event.type !== 'test:pass' && event.type !== 'test:fail') || event.data.nesting !== 0) continue;
    const file = event.data.file ?? '(no file)';
    const seen = byFile.get(file) ?? { ms: 0, tests: 0 };
    seen.ms += event.data.details?.duration_ms ?? 0;
    seen.tests += 1;
    byFile.set(file, seen);
  }
  const slowest = [...byFile].sort((a, b) => b[1].ms - a[1].ms).slice(0, SHOWN);
  if (slowest.length === 0) return;
  yield `\nthe door's slowest test files (their tests' time summed; ${byFile.size} files):\n`;
  for (const [file, { ms, tests }] of slowest)
    yield `  ${(ms / 1000).toFixed(1).padStart(6)} s  ${String(tests).padStart(3)} tests  ${path.relative(process.cwd(), file)}\n`;
}
