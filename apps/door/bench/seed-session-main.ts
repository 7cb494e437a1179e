/**
 * `node dist/bench/seed-session-main.js <records folder> <N>`: seeds a stopped door's records folder with a session of
 * N tasks (seed-session.ts) and prints what it seeded as one JSON line. With `--trace` instead, one task whose record
 * is a trace of about N spans (seed-trace.ts). The e2e fixtures run it as a subprocess.
 */
import { seedSession } from './seed-session.js';
import { seedTrace } from './seed-trace.js';

const [recordsDir, count, mode] = process.argv.slice(2);
const n = Number(count);
if (!recordsDir || !Number.isInteger(n) || n < 1 || (mode !== undefined && mode !== '--trace')) {
  process.stderr.write('usage: seed-session-main.js <records folder> <N ≥ 1> [--trace]\n');
  process.exit(2);
}
process.stdout.write(`${JSON.stringify(mode === '--trace' ? await seedTrace(recordsDir, n) : await seedSession(recordsDir, n))}\n`);
