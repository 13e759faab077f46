// The viewer's bar at a phone's 390×844, a laptop's 1280×800 and 4K (3840×2160 at device scale 1),
// measured as drawn, on the real stack with recording on, the AI allowed to act without asking
// (autopilot, so its pill shows) and an AI client connected: one row at 1280 and 4K and at most
// two on the phone, no item overlapping another or sticking out of the window, no word cut off,
// and text that reads at 4K (the one interface scale, theme.css --ui-scale: ≥ 19 px there, 13 px
// on a laptop), and at 1440, 1920 and 2560 px between them. What leaves the bar is in the menu:
// the AI clients (below 2560 px, or 3840 px where the type is scaled up). The Menu
// button is a disclosure: aria-expanded, Enter opens it with the
// keyboard inside, Escape closes it and gives the keyboard back to the button; axe on the menu.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect, test } from './fixtures.js';
import { callTool, connectMcp, openControlViewer } from './support/controlPlane.js';
import { recordingOn } from './support/recordingOn.js';
import { expectNoSeriousViolations } from './support/a11y.js';
import {
  UI_SIZES,
  barLayout,
  expectNoSidewaysScroll,
  intersecting,
  shot,
  sizeTag,
} from './support/uiShots.js';

test.describe.configure({ mode: 'serial' });

/**
 * The three sizes of the tour and the common desktop sizes between them, where the bar held more
 * than fits (at 1440 and 1920 px it cut the desktop's name, its size and the unasked label short),
 * and a QHD screen, whose type theme.css scales up half again.
 */
const SIZES = [
  ...UI_SIZES,
  { width: 1440, height: 900 },
  { width: 1920, height: 1080 },
  { width: 2560, height: 1440 },
] as const;

/** The bar writes the AI clients out only on a wide screen (styles.css); elsewhere the menu does. */
const clientsInMenu = (size: { width: number; height: number }): boolean =>
  size.width < 2560 || (size.height >= 1400 && size.width < 3840);

let recordingBack: (() => Promise<void>) | undefined;
let ai: Client | undefined;

test.afterAll(async () => {
  await ai?.close();
  await recordingBack?.();
});

test('the bar: its rows, nothing cut off, type that reads at 4K, and the Menu as a disclosure at each size', async ({
  page,
  stack,
}) => {
  test.setTimeout(120_000);
  recordingBack = await recordingOn(stack);
  await openControlViewer(page, stack, 'autopilot');
  ai = await connectMcp(stack);
  expect((await callTool(ai, 'get_display_info', {})).isError).toBe(false);
  await expect(page.getByTestId('recording-indicator')).toBeVisible({ timeout: 15_000 });
  await expect(page.getByTestId('desktop-charge')).toBeVisible();
  const menuButton = page.getByRole('button', { name: 'Menu', exact: true });
  for (const size of SIZES) {
    const tag = sizeTag(size);
    await page.setViewportSize(size);
    // Laid out for the new size (a resize is one frame; the bar has no transitions).
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => done(null))));
    await shot(page, `bar-${tag}`);
    const bar = await barLayout(page);
    const names = bar.items.map((i) => i.name).join(' | ');
    expect(bar.rows, `rows at ${tag}: ${names}`).toBeLessThanOrEqual(size.width === 390 ? 2 : 1);
    expect(intersecting(bar.items), `overlapping bar items at ${tag}`).toEqual([]);
    expect(bar.cut, `cut-off text in the bar at ${tag}`).toEqual([]);
    for (const item of bar.items) {
      expect(item.x, `${item.name} at ${tag}`).toBeGreaterThanOrEqual(0);
      expect(item.x + item.width, `${item.name} at ${tag}`).toBeLessThanOrEqual(size.width);
    }
    if (size.width === 3840) expect(bar.fontPx, 'the bar’s text at 4K').toBeGreaterThanOrEqual(19);
    else expect(bar.fontPx, `the bar’s text at ${tag}`).toBeGreaterThanOrEqual(13);
    await expectNoSidewaysScroll(page, `the viewer at ${tag}`);
    // What left the bar is in the menu.
    if (clientsInMenu(size)) await expect(page.getByTestId('ai-link')).toBeHidden();
    await expect(page.getByTestId('account-name')).toBeVisible();

    // The Menu by keyboard: a disclosure that gives the keyboard back to its button.
    await expect(menuButton).toHaveAttribute('aria-expanded', 'false');
    await menuButton.focus();
    await page.keyboard.press('Enter');
    const menu = page.getByTestId('client-menu');
    await expect(menu).toBeVisible();
    await expect(menuButton).toHaveAttribute('aria-expanded', 'true');
    await expect
      .poll(() =>
        page.evaluate(() => document.activeElement?.closest('[data-client-menu]') !== null),
      )
      .toBe(true);
    if (clientsInMenu(size)) {
      await expect(menu.getByTestId('menu-ai-clients')).toBeVisible();
      await expect(menu.getByTestId('menu-ai-clients')).toContainText('(token “');
    }
    await shot(page, `bar-menu-${tag}`);
    await expectNoSeriousViolations(page, `the viewer's menu opened from the bar (${tag})`);
    await page.keyboard.press('Escape');
    await expect(menu).toHaveCount(0);
    await expect(menuButton).toHaveAttribute('aria-expanded', 'false');
    await expect(menuButton).toBeFocused();
  }
});
