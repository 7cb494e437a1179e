/**
 * The control surface from the console's session view (docs/control.md, docs/console.md): its own token asked
 * with the token prompt, a wrong token and a door token refused in the control surface's words, a driver switch
 * that serves the next task, and a choice that cannot be used refused with switch-driver's message.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { openDoor, sendFromConsole, timelineOf } from '../support/console.js';
import { type Door, expect, test } from '../support/fixtures.js';

const MANIFEST = `name: steered
version: 0.1.0
lifecycle:
  task_acceptance: queue
inference:
  driver: first
  max_turns: 8
  choices:
    first:
      driver: script
      script: first.yaml
    second:
      driver: script
      script: second.yaml
    nokey:
      driver: openai-compatible
      base_url: http://127.0.0.1:9/v1
      model: never-called
      api_key_env: MURMUR_E2E_UNSET_KEY
capabilities:
  shell:
    allow: [bash]
network:
  authentication:
    scheme: bearer
`;

function capsule(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'murmur-e2e-control-'));
  writeFileSync(path.join(dir, 'murmur.yaml'), MANIFEST);
  writeFileSync(path.join(dir, 'first.yaml'), 'default:\n  turns:\n    - answer: "first answers {{task.text}}"\n');
  writeFileSync(path.join(dir, 'second.yaml'), 'default:\n  turns:\n    - answer: "second answers {{task.text}}"\n');
  return dir;
}

const controlTokenOf = (door: Door): string => JSON.parse(readFileSync(path.join(door.recordsDir, 'control-token.json'), 'utf8')).token;
const doorTokenOf = (door: Door): string => JSON.parse(readFileSync(path.join(door.recordsDir, 'tokens.json'), 'utf8')).tokens[0].token;

async function saveControlToken(page: Page, token: string) {
  await page.getByLabel('Control token', { exact: true }).fill(token);
  await page.getByRole('button', { name: 'Save control token' }).click();
}

test.describe('the control surface in the session view', () => {
  let door: Door;

  test.beforeAll(async ({ murmur }) => {
    delete process.env.MURMUR_E2E_UNSET_KEY;
    door = await murmur.startDoor(capsule());
  });

  test.afterAll(async () => {
    await door?.stop();
  });

  test('asks for the control token, refuses a wrong one and a door token, switches the driver for the next task', async ({ page, murmur }) => {
    // The door token first, so the session view is live.
    await page.goto(`${murmur.consoleUrl}/#/door/${door.address}`);
    await page.getByLabel('Token', { exact: true }).fill(doorTokenOf(door));
    await page.getByRole('button', { name: 'Save token' }).click();
    await openDoor(page, murmur.consoleUrl, door.address);

    const panel = page.getByRole('region', { name: 'Control' });
    await expect(panel.getByText("takes the session's control token")).toBeVisible();
    await panel.getByRole('button', { name: 'Give the control token' }).click();
    await expect(panel.getByRole('heading', { name: 'The control surface needs its token' })).toBeVisible();

    await panel.getByRole('button', { name: 'Save control token' }).click();
    await expect(panel.getByRole('alert').filter({ hasText: 'Paste the control token' })).toBeVisible();

    await saveControlToken(page, 'mur_ctl_not-this-sessions-token');
    await expect(
      panel.getByRole('alert').filter({ hasText: "this is not this session's control token, or the session has been restarted since" }),
    ).toBeVisible();

    // The door's operator token is refused by the control surface, by name.
    await saveControlToken(page, doorTokenOf(door));
    await expect(panel.getByRole('alert').filter({ hasText: "this is a door token: the control surface takes the session's control token" })).toBeVisible();

    await saveControlToken(page, controlTokenOf(door));
    await expect(panel.getByRole('heading', { name: 'The control surface needs its token' })).toBeHidden();
    await expect(panel.getByTestId('control-driver')).toHaveText('first');
    const select = panel.getByLabel('Driver');
    await expect(select.locator('option')).toHaveText(['first (script)', 'second (script)', 'nokey (openai-compatible, never-called) — cannot be used now']);

    // A choice whose key is unset: switch-driver's message, and nothing switches.
    await select.selectOption('nokey');
    await panel.getByRole('button', { name: 'Switch driver' }).click();
    await expect(
      panel.getByRole('alert').filter({ hasText: "choice 'nokey' cannot be used: its key variable MURMUR_E2E_UNSET_KEY (api_key_env) is not set" }),
    ).toBeVisible();
    await expect(panel.getByTestId('control-driver')).toHaveText('first');

    await select.selectOption('second');
    await panel.getByRole('button', { name: 'Switch driver' }).click();
    await expect(
      panel.getByRole('status').filter({ hasText: 'inference.driver: first → second (script); the next inference call is served by second' }),
    ).toBeVisible();
    await expect(panel.getByTestId('control-driver')).toHaveText('second');
    await page.screenshot({ path: test.info().outputPath('control.png'), fullPage: true });

    // The next task is served by the choice the console selected.
    const taskId = await sendFromConsole(page, 'steered');
    await expect(timelineOf(page, door)).toContainText('second answers steered');
    const trace = readFileSync(path.join(door.recordsDir, 'trace.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const applied = trace.find((r) => r.type === 'control_applied');
    expect(applied).toMatchObject({ principal: 'operator', setting: 'inference.driver', value: 'second', task_id: taskId, turn: 1 });
    expect(applied.token_id).toMatch(/^ctk_[0-9a-f]{32}$/);
  });
});
