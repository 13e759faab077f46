// The viewer's main jobs with the keyboard alone, on the real stack (bridge, gateway, Xvnc,
// Chromium): Tab reaches Stop from the page's start and Enter on it stops; the mode is changed
// from its selector and the raise approved by keys; the live timeline opens from its button, its
// first card's "Open" takes the keyboard to the player at that moment, and Escape closes the panel
// from its button as from inside it; the files panel, opened from its button (the bar's, or the
// menu's on a phone), takes the keyboard, and Escape gives it to the desktop; in the player, Tab
// reaches the seek bar and the arrows seek. The desktop's mode and the recording setting are left
// as found. And one Escape does one thing: in a panel while an approval waits, it closes the
// panel and leaves the approval to the person.
/// <reference lib="dom" />
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures.js';
import { tabTo } from './support/a11y.js';
import { callTool, connectMcp, openControlViewer, setViewerMode } from './support/controlPlane.js';
import { countedKeyboard } from './support/countedKeyboard.js';
import { adminSession } from './support/signIn.js';

let mcp: Client;

test.beforeEach(async ({ page, stack }) => {
  await openControlViewer(page, stack, 'assist');
  mcp = await connectMcp(stack);
});

test.afterEach(async ({ page }) => {
  await mcp.close();
  await setViewerMode(page, 'assist').catch(() => undefined);
});

const focusIsIn = (page: Page, selector: string) =>
  page.evaluate((s) => document.activeElement?.closest(s) !== null, selector);

test('Tab from the top of the viewer reaches Stop within a few presses, and Enter stops', async ({
  page,
}) => {
  await page.locator('body').focus();
  const stop = page.getByRole('button', { name: /^Stop/ }).first();
  const presses = await tabTo(page, stop, { max: 20 });
  expect(presses).toBeGreaterThan(0);
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('mode-select')).toHaveValue('passive');
});

test('the mode is raised from its selector by keys, and the raise approved by keys', async ({
  page,
}) => {
  const select = page.getByTestId('mode-select');
  await tabTo(page, select, { max: 30 });
  // A closed <select> takes the arrow keys as a choice of the next option.
  await page.keyboard.press('ArrowDown');
  await expect(page.getByTestId('confirm-panel')).toContainText('Confirm: switch to autopilot');
  const keys = countedKeyboard(page);
  await keys.chord();
  await expect(page.getByRole('button', { name: 'Deny', exact: true })).toBeFocused();
  await keys.press('Tab');
  const approve = page.getByRole('button', { name: 'Approve', exact: true });
  await expect(approve).toBeFocused();
  // Approve arms after a moment (a press meant for something else never approves).
  await expect(approve).not.toHaveAttribute('aria-disabled', 'true');
  await keys.press('Enter');
  await expect(select).toHaveValue('autopilot');
  await expect(page.getByTestId('confirm-panel')).toHaveCount(0);
});

test('the live timeline by keyboard: open it, jump to a moment in the player, Escape closes it from its button', async ({
  page,
  stack,
}) => {
  test.setTimeout(120_000);
  const admin = await adminSession(stack);
  const was: unknown = await (await admin.request('/api/settings/recording')).json();
  await admin.request('/api/settings/recording', { method: 'PUT', body: { default_mode: 'on' } });
  try {
    await page.reload();
    await expect(page.getByTestId('recording-indicator')).toHaveText(/Recording/, {
      timeout: 15_000,
    });
    // Some recording before and after the AI's action, so the player has a span to seek in.
    await page.waitForTimeout(2_000);
    const drawn = await callTool(mcp, 'draw_overlay', { x: 40, y: 40, width: 80, height: 60 });
    expect(drawn.isError, drawn.text).toBe(false);
    await page.waitForTimeout(2_000);

    const button = page.getByTestId('live-timeline-button');
    await tabTo(page, button, { max: 30 });
    await page.keyboard.press('Enter');
    const panel = page.getByTestId('live-timeline');
    await expect(panel).toBeVisible();
    // The focus stayed on the button: Escape there closes the panel, the button keeps the focus.
    await expect(button).toBeFocused();
    await page.keyboard.press('Escape');
    await expect(panel).toHaveCount(0);
    await expect(button).toBeFocused();

    await page.keyboard.press('Enter');
    const open = panel.getByRole('link', { name: /^Open draw_overlay at / }).first();
    await expect(open).toBeVisible({ timeout: 15_000 });
    // The panel comes right after its button: Tab goes into it, to the card's link.
    await tabTo(page, open, { max: 10 });
    const href = (await open.getAttribute('href')) ?? '';
    expect(href).toMatch(/^\/recordings\/[^/?]+\?t=\d+$/);
    const [player] = await Promise.all([
      page.context().waitForEvent('page'),
      page.keyboard.press('Enter'),
    ]);
    await player.waitForLoadState();
    expect(new URL(player.url()).pathname + new URL(player.url()).search).toBe(href);
    const seek = player.getByTestId('player-seek');
    await expect(seek).toBeVisible({ timeout: 30_000 });
    // In the player, the keyboard reaches the seek bar by Tab and the arrows move it.
    await player.locator('body').focus();
    await tabTo(player, seek, { max: 40 });
    await player.keyboard.press('Home');
    const start = Number(await seek.getAttribute('min'));
    await expect(seek).toHaveAttribute('data-at', String(start));
    await player.keyboard.press('ArrowRight');
    await expect
      .poll(async () => Number(await seek.getAttribute('data-at')))
      .toBeGreaterThan(start);
    await player.close();

    // Escape from inside the panel closes it too and gives the keyboard back to the button.
    await page.bringToFront();
    await expect(focusIsIn(page, '[data-testid="live-timeline"]')).resolves.toBe(true);
    await page.keyboard.press('Escape');
    await expect(panel).toHaveCount(0);
    await expect(button).toBeFocused();
  } finally {
    await admin.request('/api/settings/recording', { method: 'PUT', body: was });
    await callTool(mcp, 'clear_overlays', {});
  }
});

for (const size of [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
]) {
  test(`the files panel by keyboard at ${size.width} px: it takes the keyboard when opened, Escape gives it to the desktop`, async ({
    page,
  }) => {
    await page.setViewportSize(size);
    const panel = page.getByTestId('files-panel');
    if (size.width > 720) {
      const files = page.getByTestId('files-button');
      await tabTo(page, files, { max: 30 });
      await page.keyboard.press('Enter');
    } else {
      // On a phone the bar has no Files button: the menu has it.
      const menu = page.getByRole('button', { name: 'Menu' });
      await tabTo(page, menu, { max: 30 });
      await page.keyboard.press('Enter');
      await tabTo(page, page.getByTestId('menu-files-button'), { max: 30 });
      await page.keyboard.press('Enter');
      await expect(page.getByTestId('client-menu')).toHaveCount(0);
    }
    await expect(panel).toBeVisible();
    await expect(panel.getByRole('heading', { name: /^Files on / })).toBeFocused();
    await tabTo(page, panel.getByRole('button', { name: 'Send files…' }), { max: 5 });
    await page.keyboard.press('Escape');
    await expect(panel).toHaveCount(0);
    await expect(page.locator('[data-remote-display]')).toBeFocused();
  });
}

test('one Escape, one effect: Escape in the files panel while an approval waits closes the panel and leaves the approval waiting', async ({
  page,
}) => {
  const files = page.getByTestId('files-button');
  await tabTo(page, files, { max: 30 });
  await page.keyboard.press('Enter');
  const panel = page.getByTestId('files-panel');
  await expect(panel.getByRole('heading', { name: /^Files on / })).toBeFocused();
  const pending = callTool(mcp, 'click_at', { x: 5, y: 5, intent: 'One Escape' });
  const confirm = page.getByTestId('confirm-panel');
  await expect(confirm).toContainText('One Escape');
  await page.keyboard.press('Escape');
  await expect(panel).toHaveCount(0);
  await expect(confirm).toBeVisible();
  // Still the person's to answer: the chord and Enter deny it.
  await countedKeyboard(page).chord();
  await expect(page.getByRole('button', { name: 'Deny', exact: true })).toBeFocused();
  await page.keyboard.press('Enter');
  expect((await pending).text).toMatch(/^permission_denied: /);
});
