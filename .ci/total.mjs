// Sums the pass/fail counts every test runner printed into one closing line: "tests: N passed, N failed".
// `node .ci/total.mjs LOG` prints it; scripts/node-lines.mjs imports `totals` to check that its own runs are counted.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ESC = String.fromCharCode(27);

// Each pattern reads one runner's summary line, once turbo's "@murmur/<pkg>:<task>: " prefix is removed:
// node:test's TAP reporter "# pass N" / "# fail N", and its spec reporter "ℹ pass N" / "ℹ fail N" (the default of
// Node 23 and later even when the output is piped: scripts/node-lines.mjs runs Node 24); vitest
// "Tests  [N failed | ]N passed (T)"; Playwright "  N passed (…)" / "  N failed".
const readers = [
  [/^(?:#|\u2139) pass (\d+)$/, (m) => [Number(m[1]), 0]],
  [/^(?:#|\u2139) fail (\d+)$/, (m) => [0, Number(m[1])]],
  [/^\s*Tests\s+(?:(\d+) failed \| )?(\d+) passed/, (m) => [Number(m[2]), Number(m[1] ?? 0)]],
  [/^\s+(\d+) passed( \(|$)/, (m) => [Number(m[1]), 0]],
  [/^\s+(\d+) failed$/, (m) => [0, Number(m[1])]],
];

/** The pass and fail counts of every runner's summary lines in `log`, summed (colour codes and turbo's prefix ignored). */
export function totals(log) {
  const text = log
    .split(`${ESC}[`)
    .map((part, i) => (i === 0 ? part : part.replace(/^[0-9;]*m/, '')))
    .join('');
  let passed = 0;
  let failed = 0;
  for (const line of text.split('\n')) {
    const body = line.replace(/^@murmur\/[a-z0-9-]+:[a-z]+: /, '');
    for (const [pattern, count] of readers) {
      const match = pattern.exec(body);
      if (!match) continue;
      const [p, f] = count(match);
      passed += p;
      failed += f;
      break;
    }
  }
  return { passed, failed };
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { passed, failed } = totals(readFileSync(process.argv[2], 'utf8'));
  console.log(`tests: ${passed} passed, ${failed} failed`);
}
