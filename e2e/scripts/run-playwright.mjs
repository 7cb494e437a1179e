// `npm test -w @murmur/e2e`: Playwright on the project `parallel`, every spec, three workers (playwright.config.ts);
// `npm run measure -w @murmur/e2e` (run by `npm run bench`) runs the perf specs alone as the project `measured`, which
// writes the figures the bench reports. Arguments go to Playwright (`-- --grep …`).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { runTmpdir } from '../../scripts/run-tmpdir.mjs';

const project = process.env.MURMUR_E2E_PROJECT === 'measured' ? 'measured' : 'parallel';
const cli = createRequire(import.meta.url).resolve('@playwright/test/cli');
const args = [cli, 'test', `--project=${project}`, `--output=test-results/${project}`, ...process.argv.slice(2)];
// The folders the specs, their doors and Chromium make go under the run's own TMPDIR, removed at its end.
const runTmp = runTmpdir('e2e');
const env = { ...process.env, TMPDIR: runTmp.dir, PLAYWRIGHT_HTML_OUTPUT_DIR: `playwright-report/${project}` };
const run = spawnSync(process.execPath, args, { stdio: 'inherit', env });
runTmp.remove();
process.exit(run.status ?? 1);
