// Toasts beside the viewer's other panels, measured as drawn on the real stack (bridge, gateway,
// two Xvnc desktops, Chromium): the files panel (at a phone's 390×844 and a laptop's 1280×800,
// also with an approval sheet open under it), the approvals waiting on the person's other
// desktop (floating bottom left) and the actions held during a take-over (a sheet along a
// phone's bottom) keep every button clear of the toasts. toastPlacement.spec does the menu, the
// approval panel and the action log; both read the band Toasts.tsx publishes as --toasts-room.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures.js';
import { callTool, setViewerMode } from './support/controlPlane.js';
import { openTwoDesktops, type TwoDesktops } from './support/twoDesktops.js';
import { boxesOf, denyOneClick, toastOverlaps } from './support/toastBoxes.js';
import { shot, sizeTag } from './support/uiShots.js';

test.describe.configure({ mode: 'serial' });

const PHONE = { width: 390, height: 844 };
const LAPTOP = { width: 1280, height: 800 };

let two: TwoDesktops | undefined;
let ai1: Client;
let ai2: Client;
let viewer: Page;

test.beforeAll(async ({ browser, stack }) => {
  test.setTimeout(150_000);
  two = await openTwoDesktops(browser, stack, { password: 'toast!pw', viewport: LAPTOP });
  ({ ai1, ai2, viewer1: viewer } = two);
  await setViewerMode(two.viewer2, 'assist');
  await viewer.bringToFront();
  await setViewerMode(viewer, 'assist');
});

test.afterAll(async () => {
  await two?.close();
});

/** Overlaps of a toast with anything else, once the toasts and each panel are drawn. */
async function toastsOver(page: Page, panels: readonly string[]): Promise<string[]> {
  const boxes = await boxesOf(page, ['toast', ...panels]);
  expect(boxes.filter((b) => b.name.startsWith('toast[')).length, 'toasts drawn').toBeGreaterThan(
    0,
  );
  for (const panel of panels)
    expect(
      boxes.some((b) => b.name.startsWith(`${panel}[`)),
      `${panel} drawn`,
    ).toBe(true);
  return toastOverlaps(boxes);
}

async function dismissToasts(page: Page): Promise<void> {
  for (let left = await page.getByTestId('toast').count(); left > 0; left--)
    await page.getByTestId('toast').first().getByRole('button', { name: 'Dismiss' }).click();
  await expect(page.getByTestId('toast')).toHaveCount(0);
}

/** Presses a bar button, or its copy in the menu where the bar has no room for it. */
async function pressFromBarOrMenu(page: Page, testId: string): Promise<void> {
  const inBar = page.getByRole('banner').getByTestId(testId);
  if (await inBar.isVisible()) {
    await inBar.click();
    return;
  }
  await page.getByRole('button', { name: 'Menu', exact: true }).click();
  await page.getByTestId('client-menu').getByTestId(testId).click();
  const menu = page.getByTestId('client-menu');
  if (await menu.isVisible())
    await menu.getByRole('button', { name: 'Close', exact: true }).click();
}

test('toasts leave the files panel clear, with an approval sheet open too, on a phone and a laptop', async () => {
  test.setTimeout(120_000);
  for (const size of [PHONE, LAPTOP]) {
    const tag = sizeTag(size);
    await viewer.setViewportSize(size);
    // Three toasts: a band as tall as a third of the files panel on a phone.
    for (let i = 0; i < 3; i++) await denyOneClick(viewer, ai1);
    const inMenu = viewer.getByTestId('menu-files-button');
    await viewer.getByRole('button', { name: 'Menu', exact: true }).click();
    if (await inMenu.isVisible()) await inMenu.click();
    else {
      await viewer
        .getByTestId('client-menu')
        .getByRole('button', { name: 'Close', exact: true })
        .click();
      await viewer.getByTestId('files-button').click();
    }
    await expect(viewer.getByTestId('files-panel')).toBeVisible();
    await expect(viewer.getByTestId('toast')).toHaveCount(3);
    await shot(viewer, `toast-files-${tag}`);
    expect(await toastsOver(viewer, ['files-panel']), `toasts over files at ${tag}`).toEqual([]);

    // The AI asks while the files panel is open: the sheet (on a phone) and the files panel.
    const asked = callTool(ai1, 'click_at', { x: 30, y: 30 });
    await expect(viewer.getByTestId('confirm-panel')).toBeVisible();
    await shot(viewer, `toast-files-approval-${tag}`);
    expect(
      await toastsOver(viewer, ['files-panel', 'confirm-panel']),
      `toasts over files or the approval at ${tag}`,
    ).toEqual([]);
    await viewer.getByRole('button', { name: 'Deny', exact: true }).click();
    expect((await asked).isError).toBe(true);
    await viewer
      .getByTestId('files-panel')
      .getByRole('button', { name: 'Close', exact: true })
      .click();
    await dismissToasts(viewer);
  }
});

test("toasts leave the other desktop's approvals clear on a phone", async () => {
  await viewer.setViewportSize(PHONE);
  for (let i = 0; i < 2; i++) await denyOneClick(viewer, ai1);
  const elsewhere = callTool(ai2, 'click_at', { x: 200, y: 150, intent: 'Close the dialog' });
  const floating = viewer.getByTestId('fleet-approvals');
  await expect(floating.getByTestId('fleet-approval')).toHaveCount(1, { timeout: 10_000 });
  await expect(viewer.getByTestId('toast')).toHaveCount(2);
  await shot(viewer, `toast-other-desktop-${sizeTag(PHONE)}`);
  expect(await toastsOver(viewer, ['fleet-approvals']), 'toasts over the approvals').toEqual([]);
  await floating.getByTestId('fleet-approval-deny').click();
  expect((await elsewhere).isError).toBe(true);
  await dismissToasts(viewer);
});

test('toasts leave the actions held at the hand back clear on a phone', async () => {
  await viewer.setViewportSize(PHONE);
  await setViewerMode(viewer, 'autopilot');
  try {
    // In autopilot the AI asking for custom mode is still asked: two denials, two toasts.
    for (let i = 0; i < 2; i++) {
      const asked = callTool(ai1, 'set_mode', { mode: 'custom', metadata: { allow: [] } });
      await expect(viewer.getByTestId('confirm-panel')).toBeVisible();
      await viewer.getByRole('button', { name: 'Deny', exact: true }).click();
      expect((await asked).isError).toBe(true);
    }
    await pressFromBarOrMenu(viewer, 'take-over');
    const held = callTool(ai1, 'click_at', {
      x: 40,
      y: 40,
      action_timing_hint: { delay_after_ms: 6_000 },
    });
    // The call reaches the window while the person has the desktop (it waits to be offered).
    await viewer.waitForTimeout(1_000);
    await viewer
      .getByRole('button', { name: 'Hand back' })
      .filter({ visible: true })
      .first()
      .click();
    const offer = viewer.getByTestId('held-actions');
    await expect(offer).toContainText('1 approved action waiting');
    await expect(viewer.getByTestId('toast')).toHaveCount(2);
    await shot(viewer, `toast-held-${sizeTag(PHONE)}`);
    expect(await toastsOver(viewer, ['held-actions']), 'toasts over the held actions').toEqual([]);
    await offer.getByRole('button', { name: 'Discard' }).click();
    expect((await held).isError).toBe(true);
    await dismissToasts(viewer);
  } finally {
    await setViewerMode(viewer, 'assist');
  }
});
