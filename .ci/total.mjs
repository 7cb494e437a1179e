// Sums the pass/fail counts every test runner printed into one closing line: "tests: N passed, N failed".
import { readFileSync } from 'node:fs';

const text = readFileSync(process.argv[2], 'utf8').replace(/\x1b\[[0-9;]*m/g, '');
let passed = 0;
let failed = 0;
for (const line of text.split('\n')) {
  const body = line.replace(/^@murmur\/[a-z0-9-]+:[a-z]+: /, '');
  let m;
  if ((m = /^# pass (\d+)$/.exec(body))) passed += Number(m[1]);
  else if ((m = /^# fail (\d+)$/.exec(body))) failed += Number(m[1]);
  else if ((m = /^\s*Tests\s+(?:(\d+) failed \| )?(\d+) passed/.exec(body))) {
    failed += Number(m[1] ?? 0);
    passed += Number(m[2]);
  } else if ((m = /^\s+(\d+) (passed|failed)( \(|$)/.exec(body))) {
    if (m[2] === 'passed') passed += Number(m[1]);
    else failed += Number(m[1]);
  }
}
console.log(`tests: ${passed} passed, ${failed} failed`);
