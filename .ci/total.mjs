// Sums the pass/fail counts every test runner printed into one closing line: "tests: N passed, N failed".
import { readFileSync } from 'node:fs';

const ESC = String.fromCharCode(27);
const text = readFileSync(process.argv[2], 'utf8').split(`${ESC}[`).map((part, i) => (i === 0 ? part : part.replace(/^[0-9;]*m/, ''))).join('');

// Each pattern reads one runner's summary line, once turbo's "@murmur/<pkg>:<task>: " prefix is removed:
// node:test "# pass N" / "# fail N"; vitest "Tests  [N failed | ]N passed (T)"; Playwright "  N passed (…)" / "  N failed".
const readers = [
  [/^# pass (\d+)$/, (m) => [Number(m[1]), 0]],
  [/^# fail (\d+)$/, (m) => [0, Number(m[1])]],
  [/^\s*Tests\s+(?:(\d+) failed \| )?(\d+) passed/, (m) => [Number(m[2]), Number(m[1] ?? 0)]],
  [/^\s+(\d+) passed( \(|$)/, (m) => [Number(m[1]), 0]],
  [/^\s+(\d+) failed$/, (m) => [0, Number(m[1])]],
];

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
console.log(`tests: ${passed} passed, ${failed} failed`);
