/**
 * A harness capsule in the console (docs/harness.md, issue 40): `mur run examples/claude-code` against a fake
 * Anthropic provider, a message sent from the console, and what an operator then sees — live, the run's streamed
 * text, Claude Code's own tool call (a shell command run in the sandbox) with its output, and the answer; in the
 * task's record, the run's harness records (started, ended), its inference turns and the tool call. The provider's
 * key is nowhere on either page.
 *
 * The fake provider is the door tests' (apps/door/test/support/fake-providers/main.ts, `--harness claude-code`: the
 * scripted model of support/harness-model.ts), run as a process from the door's build: e2e imports nothing of
 * apps/door. Claude Code is installed the way the door's tests install it (apps/door/scripts/ensure-harness.mjs, a
 * no-op once installed); where it cannot be, the test is skipped naming the command.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { openDoor, sendFromConsole, timelineOf } from '../support/console.js';
import { expect, REPO, test } from '../support/fixtures.js';

const ENSURE_HARNESS = path.join(REPO, 'apps/door/scripts/ensure-harness.mjs');
const FAKE_PROVIDER = path.join(REPO, 'apps/door/dist/test/support/fake-providers/main.js');
const KEY = 'sk-ant-e2e-harness-K3yValue0040';
const MODEL = 'claude-sonnet-4-5';

let missing: string | null = null;
let provider: ChildProcess | undefined;
let baseUrl = '';
let capsuleDir = '';

test.beforeAll(async () => {
  // Installing Claude Code (about 400 MB) takes about 20 s where it is missing; once installed this returns at once.
  test.setTimeout(330_000);
  const ensured = spawnSync(process.execPath, [ENSURE_HARNESS, 'claude-code'], { encoding: 'utf8', timeout: 300_000 });
  if (ensured.status !== 0) {
    missing = `Claude Code is not installed and could not be installed here (${ensured.stderr.trim().split('\n').at(-1) ?? 'no reason given'}); install it with: node apps/door/scripts/ensure-harness.mjs claude-code`;
    return;
  }
  provider = spawn(process.execPath, [FAKE_PROVIDER, 'anthropic', '--harness', 'claude-code', '--expect-key', KEY], { stdio: ['ignore', 'pipe', 'inherit'] });
  baseUrl = await new Promise<string>((resolve, reject) => {
    createInterface({ input: provider!.stdout! }).once('line', resolve);
    provider!.once('exit', (code) => reject(new Error(`the fake provider exited ${code} before it printed its address`)));
  });
  capsuleDir = mkdtempSync(path.join(os.tmpdir(), 'murmur-e2e-claude-code-'));
  cpSync(path.join(REPO, 'examples/claude-code'), capsuleDir, { recursive: true });
});

test.afterAll(() => {
  provider?.kill();
  if (capsuleDir) rmSync(capsuleDir, { recursive: true, force: true });
});

test('a Claude Code run live in the timeline and in its record, the key nowhere', async ({ page, murmur }) => {
  test.skip(missing !== null, missing ?? '');
  const door = await murmur.startDoor(capsuleDir, { ANTHROPIC_BASE_URL: baseUrl, ANTHROPIC_API_KEY: KEY, CLAUDE_MODEL: MODEL });
  await openDoor(page, murmur.consoleUrl, door.address);

  // The scripted model runs the command with Claude Code's own Bash tool, then answers with what it printed.
  const taskId = await sendFromConsole(page, 'check the sandbox [[bash:echo harness-e2e-$((6*7))]]');
  const timeline = timelineOf(page, door);
  await expect(timeline.getByRole('link', { name: taskId })).toBeVisible();
  const tool = timeline.locator('.tl-tool').filter({ hasText: 'Tool Bash' });
  await expect(tool.getByLabel('input', { exact: true })).toContainText('echo harness-e2e-$((6*7))', { timeout: 30_000 });
  // Claude Code reports its tool's output once the command ends: the timeline shows it as the call's output.
  await expect(tool.getByLabel('output', { exact: true })).toContainText('harness-e2e-42');
  // The answer's text, streamed as text frames, and the response artifact.
  await expect(timeline.locator('.tl-text').filter({ hasText: 'tool said: harness-e2e-42' })).toBeVisible();
  await expect(timeline.locator('.tl-artifact').filter({ hasText: 'tool said: harness-e2e-42' })).toBeVisible();
  await expect(timeline.getByText('completed', { exact: true }).first()).toBeVisible();
  expect(await page.content()).not.toContain(KEY);

  // The task's record: the harness run's start and end around its two inference turns and Claude Code's tool call.
  await timeline.getByRole('link', { name: taskId }).click();
  await expect(page.getByRole('heading', { name: `Task ${taskId}`, level: 1 })).toBeVisible();
  const record = page.getByRole('table', { name: 'Task record' });
  // The row whose label is exactly `label` (or starts with it): "Answer" is not "Harness claude-code answered".
  const entry = (label: string, { prefix = false } = {}) =>
    record.getByRole('row').filter({ has: page.locator('.what', { hasText: new RegExp(`^${label.replace(/[()$*.]/g, '\\$&')}${prefix ? '' : '$'}`) }) });
  await expect(entry('Ended completed')).toBeVisible();
  await expect(entry('Harness claude-code started (new session)')).toContainText(`model ${MODEL} · session `);
  await expect(entry('Harness claude-code answered')).toContainText(/exit 0 · 2 turns · session [0-9a-f-]{36}/);
  await expect(entry('Turn 1')).toContainText('tool_use');
  await expect(entry('Turn 2')).toContainText('end_turn');
  const call = entry('Tool call Bash', { prefix: true });
  await expect(call).toContainText('echo harness-e2e-$((6*7))');
  await call.getByText('Output of Bash').click();
  await expect(call).toContainText('harness-e2e-42');
  await expect(entry('Answer')).toContainText('tool said: harness-e2e-42');
  const labels = await record.locator('.what').allTextContents();
  expect(labels[0]).toBe("Operator's message");
  expect(labels[1]).toMatch(/^Harness claude-code started/);
  expect(labels.slice(-3)).toEqual(['Harness claude-code answered', 'Answer', 'Ended completed']);
  expect(await page.content()).not.toContain(KEY);
  await page.screenshot({ path: test.info().outputPath('harness-task-record.png'), fullPage: true });
  await door.stop();
});
