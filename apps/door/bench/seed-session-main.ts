/**
 * `node dist/bench/seed-session-main.js <records folder> <N>`: seeds a stopped door's records folder with a session of
 * N tasks (seed-session.ts) and prints what it seeded as one JSON line. The e2e fixture runs it as a subprocess.
 */
import { seedSession } from './seed-session.js';

const [recordsDir, count] = process.argv.slice(2);
const n = Number(count);
if (!recordsDir || !Number.isInteger(n) || n < 1) {
  process.stderr.write('usage: seed-session-main.js <records folder> <N ≥ 1>\n');
  process.exit(2);
}
process.stdout.write(`${JSON.stringify(await seedSession(recordsDir, n))}\n`);
