// Where a toast goes on a phone (390×844) and beside it at 1280 and 4K, measured as drawn on the
// real stack: a "Denied: …" toast (the person denied an AI click) never covers the open viewer
// menu, the approval panel (with its Deny and Stop), the action log or the bar's Stop (the live
// timeline: aiCardWords.spec). On a phone those panels
// are as wide as the desktop area and, with their content, as tall, so the toasts' band at the
// bottom is theirs only because the panels end above it (ui/Toasts.tsx's --toasts-room).
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect, test } from './fixtures.js';
import { callTool, connectMcp, openControlViewer } from './support/controlPlane.js';
import { boxesOf, denyOneClick, toastOverlaps } from './support/toastBoxes.js';
import { UI_SIZES, shot, sizeTag } from './support/uiShots.js';

test.describe.configure({ mode: 'serial' });

let ai: Client | undefined;

test.afterAll(async () => {
  await ai?.close();
});

test('a toast never covers the open menu, the approval panel or Stop, on a phone and beside it', async ({
  page,
  stack,
}) => {
  test.setTimeout(150_000);
  await openControlViewer(page, stack, 'assist');
  ai = await connectMcp(stack);
  const menuButton = page.getByRole('button', { name: 'Menu', exact: true });
  for (const size of UI_SIZES) {
    const tag = sizeTag(size);
    await page.setViewportSize(size);
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => done(null))));

    // The menu open with two toasts under it (two denials: a taller band than one).
    await denyOneClick(page, ai);
    await denyOneClick(page, ai);
    await menuButton.click();
    const menu = page.getByTestId('client-menu');
    await expect(menu).toBeVisible();
    await expect(page.getByTestId('toast')).toHaveCount(2);
    // The menu on a phone is taller than the window with its sections: it reaches the bottom.
    if (size.width === 390) {
      const box = await menu.boundingBox();
      const scroll = await menu.evaluate((el) => el.scrollHeight > el.clientHeight);
      expect(scroll, 'the menu at 390×844 holds more than fits (else this measures nothing)').toBe(
        true,
      );
      expect(box).not.toBeNull();
    }
    await shot(page, `toast-menu-${tag}`);
    const withMenu = await boxesOf(page, ['toast', 'client-menu']);
    expect(toastOverlaps(withMenu), `toasts over the menu or Stop at ${tag}`).toEqual([]);
    await page.keyboard.press('Escape');
    await expect(menu).toHaveCount(0);

    // The approval panel open while the toasts show: Deny and Stop stay clear of them.
    const asked = callTool(ai, 'click_at', { x: 20, y: 20 });
    const panel = page.getByTestId('confirm-panel');
    await expect(panel).toBeVisible();
    await expect(page.getByTestId('toast').first()).toBeVisible();
    await shot(page, `toast-approval-${tag}`);
    const withPanel = await boxesOf(page, ['toast', 'confirm-panel']);
    expect(toastOverlaps(withPanel), `toasts over the approval panel or Stop at ${tag}`).toEqual(
      [],
    );
    await page.getByRole('button', { name: 'Deny', exact: true }).click();
    expect((await asked).isError).toBe(true);

    // The action log (from the bar, or from the menu where the bar has no room for it).
    const logButton = page.getByTestId('action-log-button');
    if (await logButton.isVisible()) await logButton.click();
    else {
      await menuButton.click();
      await page.getByTestId('client-menu').getByRole('button', { name: 'Action log' }).click();
    }
    const log = page.getByTestId('action-log');
    await expect(log).toBeVisible();
    await expect(page.getByTestId('toast').first()).toBeVisible();
    await shot(page, `toast-action-log-${tag}`);
    const withLog = await boxesOf(page, ['toast', 'action-log']);
    expect(toastOverlaps(withLog), `toasts over the action log or Stop at ${tag}`).toEqual([]);
    // Opened from the menu, the menu stays open over it: close the menu first.
    const openMenu = page.getByTestId('client-menu');
    if (await openMenu.isVisible())
      await openMenu.getByRole('button', { name: 'Close', exact: true }).click();
    await log.getByRole('button', { name: 'Close', exact: true }).click();
    await expect(log).toHaveCount(0);
    // Clear the toasts before the next size (each is dismissed by its own button).
    for (let left = await page.getByTestId('toast').count(); left > 0; left--)
      await page.getByTestId('toast').first().getByRole('button', { name: 'Dismiss' }).click();
    await expect(page.getByTestId('toast')).toHaveCount(0);
  }
});
