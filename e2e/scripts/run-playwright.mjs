// `npm test -w @murmur/e2e`: Playwright twice, the project `parallel` (three workers) and then `measured` (one), so the
// specs that time the console run with no other worker beside them (playwright.config.ts). The second run goes on
// whatever the first answered, so every spec runs and reports; the exit status is the first failure's. Each run keeps
// its own test-results/ and HTML report folder. Arguments go to both runs (`-- --grep …`; a project none of whose
// specs match passes with no tests).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const cli = createRequire(import.meta.url).resolve('@playwright/test/cli');
let status = 0;
for (const project of ['parallel', 'measured']) {
  const args = [cli, 'test', `--project=${project}`, `--output=test-results/${project}`, '--pass-with-no-tests', ...process.argv.slice(2)];
  const run = spawnSync(process.execPath, args, { stdio: 'inherit', env: { ...process.env, PLAYWRIGHT_HTML_OUTPUT_DIR: `playwright-report/${project}` } });
  if (status === 0) status = run.status ?? 1;
}
process.exit(status);
