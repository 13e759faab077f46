// The person stays in charge on every monitor, with one window per monitor: an AI click on
// monitor 1 runs in the control window (which shows monitor 0) and is drawn by the window that
// shows monitor 1 — its AI pointer at exactly that desktop pixel — while X gets the click there
// (xev); Take over pressed in that window pauses the AI's input everywhere and frees the clicks
// an AI's interactive overlay over the whole desktop was catching. Real Chromium, bridge,
// gateway and Xvnc.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Browser, BrowserContext } from '@playwright/test';
import { expect, test } from './fixtures.js';
import {
  callTool,
  connectMcp,
  openControlViewer,
  openViewerAt,
  startXev,
  viewerRole,
} from './support/controlPlane.js';
import { clearLayout, saveLayout } from './support/layouts.js';
import type { RunningStack } from './support/bridgeProcess.js';
import { screenSize } from './support/xdesktop.js';

let context: BrowserContext | undefined;
let mcp: Client | undefined;

test.afterEach(async ({ stack }) => {
  // Back to passive for the specs that share this stack.
  if (mcp !== undefined) await callTool(mcp, 'set_mode', { mode: 'passive' });
  await mcp?.close();
  mcp = undefined;
  await context?.close();
  context = undefined;
  await clearLayout(stack);
});

/**
 * The person's two windows over a two-monitor layout (the desktop's halves), each showing its
 * monitor at scale 1: window one is the control window (the person raised the mode to
 * autopilot there), window two a mirror.
 */
async function twoWindows(browser: Browser, stack: RunningStack) {
  const desktop = await screenSize(stack.xEnv);
  const half = Math.floor(desktop.width / 2);
  await saveLayout(stack, {
    monitors: [
      { x: 0, y: 0, width: half, height: desktop.height },
      { x: half, y: 0, width: desktop.width - half, height: desktop.height },
    ],
  });
  context = await browser.newContext({
    viewport: { width: Math.max(1280, desktop.width - half + 40), height: desktop.height + 160 },
  });
  const one = await context.newPage();
  // The person raises the mode in their control window, then it shows monitor 0 only.
  await openControlViewer(one, stack, 'autopilot');
  await openViewerAt(one, stack, `?vx=0&vy=0&vw=${half}&vh=${desktop.height}&scale=1&monitor=0`);
  await expect.poll(() => viewerRole(one)).toBe('control');
  const two = await context.newPage();
  const vw = desktop.width - half;
  await openViewerAt(
    two,
    stack,
    `?vx=${half}&vy=0&vw=${vw}&vh=${desktop.height}&scale=1&monitor=1`,
  );
  await expect.poll(() => viewerRole(two)).toBe('mirror');
  return { one, two, desktop, half };
}

const buttonPresses = (log: string) => (log.match(/ButtonPress/g) ?? []).length;

test("an AI click on monitor 1 is drawn by monitor 1's window at the clicked pixel, and X gets it there", async ({
  browser,
  stack,
}) => {
  const { two, half } = await twoWindows(browser, stack);
  mcp = await connectMcp(stack);

  const xev = await startXev(stack.xEnv);
  try {
    const target = { x: xev.rect.x + 40, y: xev.rect.y + 30 };
    expect(target.x).toBeGreaterThanOrEqual(half);
    const clicked = await callTool(mcp, 'click_at', {
      x: target.x - half,
      y: target.y,
      monitor_index: 1,
    });
    expect(clicked.isError, clicked.text).toBe(false);
    await expect.poll(() => xev.log()).toContain(`root:(${target.x},${target.y})`);

    // Window 2 (a mirror: it ran nothing) draws the AI's pointer where the click landed.
    const pointer = two.getByTestId('ai-pointer');
    await expect(pointer).toBeVisible();
    await expect(pointer).toHaveAttribute('data-x', String(target.x));
    await expect(pointer).toHaveAttribute('data-y', String(target.y));
    const stage = await two.locator('.remote-display__stage').boundingBox();
    const tip = await pointer.boundingBox();
    if (!stage || !tip) throw new Error('no stage or pointer box');
    // Its tip is the centre of the clicked pixel: window x = (desktop x - vx + 0.5) at scale 1.
    expect(Math.abs(tip.x - (stage.x + target.x - half + 0.5))).toBeLessThanOrEqual(1);
    expect(Math.abs(tip.y - (stage.y + target.y + 0.5))).toBeLessThanOrEqual(1);
    await expect(two.getByTestId('ai-ripple').first()).toBeAttached();
  } finally {
    xev.stop();
  }
});

test('Take over in any window pauses the AI everywhere, and frees the clicks an interactive overlay was catching', async ({
  browser,
  stack,
}) => {
  const { one, two, half } = await twoWindows(browser, stack);
  mcp = await connectMcp(stack);
  const xev = await startXev(stack.xEnv);
  try {
    const target = { x: xev.rect.x + 40, y: xev.rect.y + 30 };
    expect(target.x).toBeGreaterThanOrEqual(half);
    // The AI puts an interactive overlay over the window the person wants to click: their clicks
    // are caught. (One over most of the desktop catches nothing at all: overlay/coverLimit.ts.)
    const drawn = await callTool(mcp, 'draw_overlay', {
      x: target.x - 30,
      y: target.y - 20,
      width: 160,
      height: 100,
      click_through: false,
      opacity: 0.1,
    });
    expect(drawn.isError, drawn.text).toBe(false);
    const stage = await two.locator('.remote-display__stage').boundingBox();
    if (!stage) throw new Error('no stage');
    const at = { x: stage.x + (target.x - half) + 0.5, y: stage.y + target.y + 0.5 };
    const clickTarget = () => two.mouse.click(at.x, at.y);
    // Window two has the overlay once the pointer over it turns into a hand.
    let nudge = 0;
    await expect
      .poll(async () => {
        await two.mouse.move(at.x + (nudge++ % 2), at.y);
        return two.evaluate(() => document.querySelector('.remote-display--catches') !== null);
      })
      .toBe(true);
    await clickTarget();
    await two.waitForTimeout(500);
    expect(buttonPresses(xev.log())).toBe(0);

    // Take over in window two (a mirror): the control window hears it, and the clicks are free.
    await two.getByTestId('take-over').click();
    await expect(one.getByTestId('take-over')).toHaveText('Hand back');
    await clickTarget();
    await expect.poll(() => buttonPresses(xev.log())).toBe(1);
    const refused = await callTool(mcp, 'click_at', target);
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain('The person has taken over the desktop');
    expect(buttonPresses(xev.log())).toBe(1);

    // Handed back in window two: the AI acts again, and the overlay catches the person's clicks.
    await two.getByTestId('take-over').click();
    await expect(one.getByTestId('take-over')).toHaveText('Take over');
    const clicked = await callTool(mcp, 'click_at', target);
    expect(clicked.isError, clicked.text).toBe(false);
    await expect.poll(() => buttonPresses(xev.log())).toBe(2);
    await clickTarget();
    await two.waitForTimeout(500);
    expect(buttonPresses(xev.log())).toBe(2);
  } finally {
    xev.stop();
    await callTool(mcp, 'clear_overlays', {});
  }
});
