/** Page helpers shared by the specs: open a door's page, start a task from the console, read the perf counters. */
import type { Page } from '@playwright/test';
import { type Door, expect } from './fixtures.js';

/** Opens the session view of `address` (host:port) and waits for its stream to be live. */
export async function openDoor(page: Page, consoleUrl: string, address: string, { live = true } = {}): Promise<void> {
  await page.goto(`${consoleUrl}/#/door/${address}`);
  await expect(page.getByRole('heading', { name: 'Live timeline' })).toBeVisible();
  if (live) await expect(page.getByRole('status', { name: 'Session stream' })).toHaveText('live');
}

/** The session view's live timeline (the scrollable region). */
export function timelineOf(page: Page, door: Door | string) {
  return page.getByRole('region', { name: `Live timeline of ${typeof door === 'string' ? door : door.address}` });
}

/** Types `text` in Message, presses Send and returns the id of the task the console says it started. */
export async function sendFromConsole(page: Page, text: string): Promise<string> {
  await page.getByLabel('Message').fill(text);
  await page.getByRole('button', { name: 'Send' }).click();
  // The message box empties once the door accepted the task; by then "Started <id>" names the new task.
  await expect(page.getByLabel('Message')).toHaveValue('');
  const started = page.getByText(/^\s*Started/).getByRole('link');
  await expect(started).toHaveText(/^tsk_/);
  return (await started.textContent())!.trim();
}

export interface PerfCounters {
  framesReceived: number;
  framesRendered: number;
  lastBatchMs: number;
  maxBatchMs: number;
  batches: number;
}

export function perfCounters(page: Page): Promise<PerfCounters> {
  return page.evaluate(() => ({ ...(window as unknown as { __murmurConsole: PerfCounters }).__murmurConsole }));
}
