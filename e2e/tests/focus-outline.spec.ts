/**
 * Every task filter shows a focus outline of its own while it holds focus (issue 27: "Changed since" had none once
 * its picker had been used — the focus then sits on the picker button inside the field, where :focus-visible does
 * not match the field).
 */
import type { Locator } from '@playwright/test';
import { openDoor } from '../support/console.js';
import { type Door, expect, test } from '../support/fixtures.js';

const outline = (field: Locator) =>
  field.evaluate((el) => {
    const style = getComputedStyle(el);
    return `${style.outlineStyle} ${style.outlineWidth}`;
  });

test.describe('focus outlines on the task filters', () => {
  let door: Door;

  test.beforeAll(async ({ murmur }) => {
    door = await murmur.startDoor('hello');
  });

  test.afterAll(async () => {
    await door?.stop();
  });

  test('each filter field draws a visible outline when tabbed to', async ({ page, murmur }) => {
    await openDoor(page, murmur.consoleUrl, door.address);
    const filters = page.getByRole('form', { name: 'Task filters' });
    await filters.getByLabel('Search tasks').focus();
    const seen: Record<string, string> = {};
    for (const name of ['Search tasks', 'Filter by state', 'Filter by context id', 'Changed since', 'Page size']) {
      const field = filters.getByLabel(name);
      // The date and time field takes one Tab per segment: tab until the next field holds focus.
      for (let i = 0; i < 8 && !(await field.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press('Tab');
      await expect(field).toBeFocused();
      seen[name] = await outline(field);
    }
    expect(seen).toEqual(Object.fromEntries(Object.keys(seen).map((name) => [name, 'solid 3px'])));
  });

  test('“Changed since” keeps its outline after its picker was opened and closed', async ({ page, murmur }) => {
    await openDoor(page, murmur.consoleUrl, door.address);
    const field = page.getByRole('form', { name: 'Task filters' }).getByLabel('Changed since');
    await expect(page.getByRole('table', { name: 'Tasks' })).toHaveAttribute('aria-busy', 'false');
    const box = (await field.boundingBox())!;
    // The picker button sits at the field's inline end.
    await field.click({ position: { x: box.width - 12, y: box.height / 2 } });
    await page.keyboard.press('Escape');
    // The field holds focus (it is the active element, focus within it) while :focus and :focus-visible do not match it.
    expect(
      await field.evaluate((el) => [el === document.activeElement, el.matches(':focus-within'), el.matches(':focus'), el.matches(':focus-visible')]),
    ).toEqual([true, true, false, false]);
    expect(await outline(field)).toBe('solid 3px');
    // Focus moved elsewhere: no outline left on the field.
    await page.getByRole('form', { name: 'Task filters' }).getByLabel('Page size').focus();
    expect(await outline(field)).toBe('none 3px');
  });
});
