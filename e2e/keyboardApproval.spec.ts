// Keyboard first (issue P9 item 5): a person working in the desktop answers the AI's question
// from the keyboard alone — Ctrl+Alt+Shift puts the keyboard on the approval panel's Deny, Tab
// reaches Approve, Enter answers: at most three presses, counted here — and afterwards the
// keyboard is back in the desktop area with the menu closed. Effects are checked from the X side
// (an xev window reports the clicks X delivers). A script's click or key on Approve still answers
// nothing. The person clicks into the desktop once, before the AI asks; every later step is a key.
/// <reference lib="dom" />
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures.js';
import type { RunningStack } from './support/bridgeProcess.js';
import {
  callTool,
  connectMcp,
  openControlViewer,
  pageOf,
  startXev,
} from './support/controlPlane.js';
import { countedKeyboard } from './support/countedKeyboard.js';
import { screenSize, windowRect } from './support/xdesktop.js';

let mcp: Client;

test.beforeEach(async ({ page, stack }) => {
  await openControlViewer(page, stack, 'assist');
  mcp = await connectMcp(stack);
});

test.afterEach(async () => {
  await mcp.close();
});

const buttonPresses = (log: string) => (log.match(/ButtonPress/g) ?? []).length;

/** The one click: into the desktop's xterm (well away from xev), which gives the area the keyboard. */
async function clickIntoDesktop(page: Page, stack: RunningStack): Promise<void> {
  const desktop = await screenSize(stack.xEnv);
  const xterm = await windowRect(stack.xEnv, 'xterm');
  const at = await pageOf(
    page,
    desktop.width,
    xterm.x + Math.round(xterm.width / 2),
    xterm.y + Math.round(xterm.height / 2),
  );
  await page.mouse.click(at.x, at.y);
  await expect(page.locator('[data-remote-display]')).toBeFocused();
  await expect(page.getByTestId('keyboard-target')).toHaveText('Keyboard → desktop');
}

/** The keyboard is in the desktop area again and the menu is closed. */
async function expectBackInDesktop(page: Page): Promise<void> {
  await expect
    .poll(() =>
      page.evaluate(() => document.activeElement?.hasAttribute('data-remote-display') ?? false),
    )
    .toBe(true);
  await expect(page.getByTestId('client-menu')).toHaveCount(0);
}

test('Approve in three presses from the desktop (chord, Tab, Enter): the click reaches X and the keyboard comes back', async ({
  page,
  stack,
}) => {
  await clickIntoDesktop(page, stack);
  const keys = countedKeyboard(page);
  const xev = await startXev(stack.xEnv);
  try {
    const target = { x: xev.rect.x + 60, y: xev.rect.y + 50 };
    const pending = callTool(mcp, 'click_at', { x: target.x, y: target.y });
    const panel = page.getByTestId('confirm-panel');
    await expect(panel).toContainText('Click with the left button');
    const deny = page.getByRole('button', { name: 'Deny', exact: true });
    const approve = page.getByRole('button', { name: 'Approve', exact: true });
    await expect(approve).not.toHaveAttribute('aria-disabled', 'true');

    await keys.chord();
    await expect(deny).toBeFocused();
    await expect(page.getByTestId('client-menu')).toHaveCount(0);
    await keys.press('Tab');
    await expect(approve).toBeFocused();

    // A script's Enter or click on the focused Approve answers nothing: only trusted input does.
    await approve.evaluate((button) => {
      for (const type of ['keydown', 'keypress', 'keyup'])
        button.dispatchEvent(new KeyboardEvent(type, { key: 'Enter', bubbles: true }));
      (button as HTMLButtonElement).click();
    });
    await page.waitForTimeout(300);
    await expect(panel).toBeVisible();
    expect(buttonPresses(xev.log())).toBe(0);

    await keys.press('Enter');
    const result = await pending;
    expect(result.isError, result.text).toBe(false);
    expect(result.structured).toMatchObject({ success: true, was_confirmed: true });
    expect(keys.presses()).toBe(3);
    await expect
      .poll(() => xev.log())
      .toMatch(
        new RegExp(`ButtonPress[\\s\\S]*root:\\(${target.x},${target.y}\\)[\\s\\S]*button 1`),
      );
    await expect(panel).toHaveCount(0);
    await expectBackInDesktop(page);
  } finally {
    xev.stop();
  }
});

test('Deny in two presses from the desktop (chord, Enter): nothing reaches X and the keyboard comes back', async ({
  page,
  stack,
}) => {
  await clickIntoDesktop(page, stack);
  const keys = countedKeyboard(page);
  const xev = await startXev(stack.xEnv);
  try {
    const pending = callTool(mcp, 'click_at', { x: xev.rect.x + 40, y: xev.rect.y + 40 });
    await expect(page.getByTestId('confirm-panel')).toContainText('Click with the left button');
    await keys.chord();
    await expect(page.getByRole('button', { name: 'Deny', exact: true })).toBeFocused();
    await keys.press('Enter');
    const result = await pending;
    expect(result.text).toMatch(/^permission_denied: /);
    expect(keys.presses()).toBe(2);
    await expect(page.getByTestId('confirm-panel')).toHaveCount(0);
    await expectBackInDesktop(page);
    await page.waitForTimeout(500);
    expect(buttonPresses(xev.log())).toBe(0);
  } finally {
    xev.stop();
  }
});

test('with the menu open when the AI asks: the chord still goes to the answer, answering closes the menu, and Escape closes it whenever it is open', async ({
  page,
  stack,
}) => {
  await clickIntoDesktop(page, stack);
  const keys = countedKeyboard(page);
  const menu = page.getByTestId('client-menu');
  const area = page.locator('[data-remote-display]');
  // Nothing waiting: the chord opens the menu, and Escape there gives the desktop the keyboard.
  await keys.chord();
  await expect(menu).toBeVisible();
  await expect(menu).toContainText('puts the keyboard on Deny');
  await keys.press('Escape');
  await expect(menu).toHaveCount(0);
  await expect(area).toBeFocused();

  await keys.chord();
  await expect(menu).toBeVisible();
  const xev = await startXev(stack.xEnv);
  try {
    const pending = callTool(mcp, 'click_at', { x: xev.rect.x + 40, y: xev.rect.y + 40 });
    await expect(page.getByTestId('confirm-panel')).toBeVisible();
    // From inside the menu, the chord goes to the panel's first answer.
    await keys.chord();
    await expect(page.getByRole('button', { name: 'Deny', exact: true })).toBeFocused();
    await keys.press('Enter');
    expect((await pending).text).toMatch(/^permission_denied: /);
    await expectBackInDesktop(page);

    // The menu again, and the keyboard drops to <body> (where the old viewer left it after an
    // answer; set here by script, no key press): Escape still closes the menu, and does not deny
    // the question that waits meanwhile.
    await keys.chord();
    await expect(menu).toBeVisible();
    const waiting = callTool(mcp, 'click_at', { x: xev.rect.x + 50, y: xev.rect.y + 50 });
    await expect(page.getByTestId('confirm-panel')).toBeVisible();
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await expect
      .poll(() => page.evaluate(() => document.activeElement === document.body))
      .toBe(true);
    await keys.press('Escape');
    await expect(menu).toHaveCount(0);
    await expect(page.getByTestId('confirm-panel')).toBeVisible();
    // The second press of the chord from the panel opens the menu; Escape in the panel denies.
    await keys.chord();
    await expect(page.getByRole('button', { name: 'Deny', exact: true })).toBeFocused();
    await keys.chord();
    await expect(menu).toBeVisible();
    await keys.chord();
    await keys.press('Escape');
    expect((await waiting).text).toMatch(/^permission_denied: /);
    await expect(page.getByTestId('confirm-panel')).toHaveCount(0);
    await expect(menu).toHaveCount(0);
    await page.waitForTimeout(300);
    expect(buttonPresses(xev.log())).toBe(0);
  } finally {
    xev.stop();
  }
});
