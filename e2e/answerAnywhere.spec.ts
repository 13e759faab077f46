// Answer anywhere (P9 item 2): two windows of the admin, a phone-sized one (390 px, the control
// window) and a 4K one (3840 px, a mirror). An AI click_at in assist mode is asked in both; a
// script's click on the mirror's Approve does nothing, the person's click there answers it: the
// control window's panel closes at once and the click reaches X (xev). Then "Make this the
// control window" in the mirror moves the role, and the next question is asked there. Real
// Chromium, real bridge, gateway and Xvnc.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { BrowserContext } from '@playwright/test';
import { expect, test } from './fixtures.js';
import {
  callTool,
  connectMcp,
  openControlViewer,
  openViewerAt,
  startXev,
  viewerRole,
} from './support/controlPlane.js';
import { signInContext } from './support/signIn.js';

let contexts: BrowserContext[] = [];
let mcp: Client | undefined;

test.afterEach(async () => {
  await mcp?.close();
  mcp = undefined;
  for (const context of contexts) await context.close();
  contexts = [];
});

test('an approval answered in the 4K mirror closes the phone’s panel and clicks; the mirror then takes control', async ({
  browser,
  stack,
}) => {
  // The phone opens at the default size (its status bar then shows the desktop's size, which
  // openControlViewer waits for) and is made phone-sized once the link is up.
  const phoneContext = await browser.newContext();
  const wideContext = await browser.newContext({ viewport: { width: 3840, height: 2160 } });
  contexts = [phoneContext, wideContext];
  const phone = await phoneContext.newPage();
  await openControlViewer(phone, stack, 'assist');
  await phone.setViewportSize({ width: 390, height: 844 });
  await signInContext(wideContext, stack);
  const wide = await wideContext.newPage();
  await openViewerAt(wide, stack, '/');
  expect(await viewerRole(wide)).toBe('mirror');
  mcp = await connectMcp(stack);

  const xev = await startXev(stack.xEnv);
  try {
    const target = { x: xev.rect.x + 60, y: xev.rect.y + 50 };
    const pending = callTool(mcp, 'click_at', { x: target.x, y: target.y });
    const panel = phone.getByTestId('confirm-panel');
    await expect(panel).toContainText('Click with the left button');
    const elsewhere = wide.getByTestId('approvals-elsewhere');
    await expect(elsewhere).toContainText('Click with the left button');
    const approve = wide.getByTestId('elsewhere-approve');
    await expect(approve).not.toHaveAttribute('aria-disabled', 'true');

    // A script's click is not the person's: it answers nothing.
    await approve.evaluate((button: HTMLButtonElement) => button.click());
    await wide.waitForTimeout(300);
    await expect(panel).toBeVisible();
    expect(xev.log()).not.toContain('ButtonPress');

    await approve.click();
    // The first answer wins: the control window's panel closes at once, and the mirror's list.
    await expect(panel).toHaveCount(0, { timeout: 2_000 });
    await expect(elsewhere).toHaveCount(0, { timeout: 2_000 });
    const result = await pending;
    expect(result.isError, result.text).toBe(false);
    expect(result.structured).toEqual({ success: true, was_confirmed: true });
    await expect
      .poll(() => xev.log())
      .toMatch(
        new RegExp(`ButtonPress[\\s\\S]*root:\\(${target.x},${target.y}\\)[\\s\\S]*button 1`),
      );

    // "Make this the control window": the 4K window runs the AI's calls from now on.
    await expect(phone.getByTestId('make-control')).toHaveCount(0);
    await wide.getByTestId('make-control').click();
    await expect.poll(() => viewerRole(wide)).toBe('control');
    await expect.poll(() => viewerRole(phone)).toBe('mirror');
    await expect(wide.getByTestId('make-control')).toHaveCount(0);
    await expect(phone.getByTestId('make-control')).toBeVisible();

    // The next question is asked in the new control window; the phone can deny it.
    const next = callTool(mcp, 'click_at', { x: target.x + 10, y: target.y });
    await expect(wide.getByTestId('confirm-panel')).toContainText('Click with the left button');
    await expect(phone.getByTestId('approvals-elsewhere')).toBeVisible();
    await phone.getByTestId('elsewhere-deny').click();
    await expect(wide.getByTestId('confirm-panel')).toHaveCount(0, { timeout: 2_000 });
    const denied = await next;
    expect(denied.isError).toBe(true);
    expect(denied.text).toMatch(/^permission_denied: /);
  } finally {
    xev.stop();
  }
});
