// A node:test reporter beside TAP (scripts/run-tests.mjs): once every file has run it prints the tests that failed
// (name, file and the error's first line), then the files whose tests took longest, summed. Both land at the end of
// `npm test`, where a CI log's tail shows them, rather than thousands of TAP lines earlier.
import path from 'node:path';

const SHOWN = 12;

/** The first line of a failure's cause: node:test wraps the thrown error in `details.error.cause`. */
function firstLine(error) {
  const cause = error?.cause ?? error;
  const text = cause instanceof Error ? cause.message : String(cause ?? '');
  return text.split('\n').find((line) => line.trim() !== '') ?? '(no message)';
}

export default async function* fileTimes(source) {
  const byFile = new Map();
  const failed = [];
  for await (const event of source) {
    if (event.type === 'test:fail' && event.data.details?.type !== 'suite') {
      failed.push({ name: event.data.name, file: event.data.file ?? '(no file)', why: firstLine(event.data.details?.error) });
    }
    if ((event.type !== 'test:pass' && event.type !== 'test:fail') || event.data.nesting !== 0) continue;
    const file = event.data.file ?? '(no file)';
    const seen = byFile.get(file) ?? { ms: 0, tests: 0 };
    seen.ms += event.data.details?.duration_ms ?? 0;
    seen.tests += 1;
    byFile.set(file, seen);
  }
  if (failed.length > 0) {
    yield `\nthe door's failed tests (${failed.length}):\n`;
    for (const { name, file, why } of failed) yield `  ✗ ${path.relative(process.cwd(), file)} › ${name}\n      ${why}\n`;
  }
  const slowest = [...byFile].sort((a, b) => b[1].ms - a[1].ms).slice(0, SHOWN);
  if (slowest.length === 0) return;
  yield `\nthe door's slowest test files (their tests' time summed; ${byFile.size} files):\n`;
  for (const [file, { ms, tests }] of slowest)
    yield `  ${(ms / 1000).toFixed(1).padStart(6)} s  ${String(tests).padStart(3)} tests  ${path.relative(process.cwd(), file)}\n`;
}
