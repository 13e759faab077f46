// The fleet view (/fleet, P13 items 1–2) end to end: the stack's sandboxed "Desktop" and a
// second real Xvnc ("Second", a VNC server on a loopback port added over /api/desktops), each with
// its own control window open and its own MCP client (the SDK's). The fleet page shows both tiles
// live (pixels on each tile's canvas, changing when the desktop does); an approval from Second is
// answered from the fleet page by keyboard and its click reaches Second's X only (xdotool
// getmouselocation on each display); an approval raised on Second while the person is in
// Desktop's full viewer is reached there by keyboard alone — the menu chord from the desktop area,
// or Tab from the bar's last control — with its focus ring drawn, and answered by Enter (the
// click reaches Second's X) or Space (denied); Stop all stops both (nothing more reaches
// either X); a tile opens the full viewer; tiles and buttons are reached by Tab; axe finds nothing
// serious at 390, 1280 and 3840 px, where the tiles fill their row's width and Stop all sits
// beside the summary, and screenshots of the page at those widths are attached.
/// <reference lib="dom" />
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { TcpLocalDesktop } from '@overlay-companion/gateway';
import type { BrowserContext, Locator, Page } from '@playwright/test';
import { registerSecret } from '../apps/bridge/src/testing/testLogs.js';
import { expect, test } from './fixtures.js';
import type { RunningStack } from './support/bridgeProcess.js';
import { expectNoSeriousViolations, tabTo } from './support/a11y.js';
import { callTool, connectMcpWithToken, setViewerMode } from './support/controlPlane.js';
import { fleetTile } from './support/fleetPage.js';
import { countedKeyboard } from './support/countedKeyboard.js';
import { openTwoDesktops, type TwoDesktops } from './support/twoDesktops.js';
import { pointerLocation } from './support/xdesktop.js';
import { captureRoot } from '@overlay-companion/gateway/testing';

const run = promisify(execFile);

test.describe.configure({ mode: 'serial' });

const SECOND_PASSWORD = 'fl33t!pw';
const SECOND_ROOT = '#2a7f3f';

let stack: RunningStack;
let second: TcpLocalDesktop;
let firstId: string;
let secondId: string;
let ai1: Client;
let ai2: Client;
let context: BrowserContext;
let viewer1: Page;
let viewer2: Page;
let fleet: Page;

let two: TwoDesktops | undefined;

test.beforeAll(async ({ browser, stack: running }) => {
  test.setTimeout(120_000);
  stack = running;
  registerSecret(SECOND_PASSWORD);
  two = await openTwoDesktops(browser, stack, {
    password: SECOND_PASSWORD,
    viewport: { width: 1280, height: 800 },
    prepare: async (desktop) => {
      await run('xsetroot', ['-solid', SECOND_ROOT], { env: desktop.env });
    },
  });
  ({ second, firstId, secondId, ai1, ai2, context, viewer1, viewer2 } = two);
  for (const page of [viewer1, viewer2]) await setViewerMode(page, 'assist');
  fleet = await context.newPage();
  await fleet.goto(new URL('/fleet', stack.url).toString());
});

test.afterAll(async () => {
  await two?.close();
});

const tile = fleetTile;

/** How many of a tile canvas's sampled pixels are not black, and their mean colour. */
async function canvasLook(page: Page, id: string): Promise<{ lit: number; mean: number[] }> {
  return tile(page, id)
    .locator('canvas')
    .evaluate((canvas: HTMLCanvasElement) => {
      const context = canvas.getContext('2d');
      if (context === null || canvas.width === 0 || canvas.height === 0)
        return { lit: 0, mean: [0, 0, 0] };
      const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
      let lit = 0;
      const sum: [number, number, number] = [0, 0, 0];
      for (let i = 0; i < data.length; i += 4 * 97) {
        const r = data[i] ?? 0;
        const g = data[i + 1] ?? 0;
        const b = data[i + 2] ?? 0;
        if (r + g + b > 30) lit++;
        sum[0] += r;
        sum[1] += g;
        sum[2] += b;
      }
      const n = Math.ceil(data.length / (4 * 97));
      return { lit, mean: sum.map((s) => Math.round(s / n)) };
    });
}

test('the fleet shows a live tile per desktop, with its AI client and what it last did', async () => {
  await expect(fleet.getByTestId('fleet-tile')).toHaveCount(2, { timeout: 15_000 });
  await expect(tile(fleet, secondId)).toContainText('Second');
  for (const id of [firstId, secondId]) {
    await expect(tile(fleet, id)).toContainText('(you)');
    await expect(tile(fleet, id).getByTestId('fleet-tile-mode')).toHaveText('Assist');
  }
  // Each AI does something; its tile says so (among the clients earlier specs left connected
  // to the shared stack's desktop).
  expect((await callTool(ai1, 'get_display_info', {})).isError).toBe(false);
  expect((await callTool(ai2, 'take_screenshot', {})).isError).toBe(false);
  const lastCall = (id: string, tool: string) =>
    tile(fleet, id).getByTestId('fleet-tile-last').filter({ hasText: tool });
  await expect(lastCall(firstId, 'get_display_info')).toHaveCount(1);
  await expect(lastCall(secondId, 'take_screenshot')).toHaveCount(1);
  await expect(tile(fleet, secondId)).toContainText('overlay-companion-e2e');
  // Pictures: Second's green root fills most of its tile.
  await expect
    .poll(async () => (await canvasLook(fleet, secondId)).lit, { timeout: 20_000 })
    .toBeGreaterThan(50);
  await expect.poll(async () => (await canvasLook(fleet, firstId)).lit).toBeGreaterThan(10);
  const green = (await canvasLook(fleet, secondId)).mean;
  expect(green[1]).toBeGreaterThan(green[0] ?? 0);
  // Live: the desktop changes, the (unfocused, once a second) tile follows.
  await run('xsetroot', ['-solid', '#b03030'], { env: second.env });
  await expect
    .poll(
      async () => {
        const [r, g] = (await canvasLook(fleet, secondId)).mean;
        return (r ?? 0) > (g ?? 0);
      },
      { timeout: 10_000 },
    )
    .toBe(true);
  await run('xsetroot', ['-solid', SECOND_ROOT], { env: second.env });
});

test("an approval from Second is answered on the fleet page by keyboard; its click reaches Second's X only", async () => {
  const firstBefore = await pointerLocation(stack.xEnv);
  const target = { x: 321, y: 234 };
  const shownFrom = Date.now();
  const pending = callTool(ai2, 'click_at', { ...target, intent: 'Open the quarterly report' });
  const approval = fleet.getByTestId('fleet-approval');
  await expect(approval).toHaveCount(1, { timeout: 10_000 });
  // What the person judges it by, as in Second's own panel: the AI's reason and Second's own
  // pixels around the point (Second's control window read them from its display).
  await expect(approval.getByTestId('fleet-approval-intent')).toContainText(
    'Open the quarterly report',
  );
  const preview = approval.getByTestId('approval-preview');
  await expect(preview).toHaveAttribute('data-x', String(target.x));
  await expect(preview).toHaveAttribute('data-y', String(target.y));
  const span = Number(await preview.getAttribute('data-span'));
  const shown = await preview.evaluate(async (img, span) => {
    const image = img as HTMLImageElement;
    await image.decode();
    const canvas = document.createElement('canvas');
    canvas.width = span;
    canvas.height = span;
    const ctx = canvas.getContext('2d');
    if (!ctx) return [];
    // The PNG itself (span × span), not its magnified rendering.
    const still = new Image();
    still.src = image.src;
    await still.decode();
    ctx.drawImage(still, 0, 0);
    return Array.from(ctx.getImageData(0, 0, span, span).data);
  }, span);
  const root = await captureRoot(second.env);
  const half = Math.floor(span / 2);
  let differ = 0;
  for (let j = 0; j < span; j++)
    for (let i = 0; i < span; i++) {
      const o = ((target.y - half + j) * root.width + (target.x - half + i)) * 4;
      const k = (j * span + i) * 4;
      for (let c = 0; c < 3; c++) if (shown[k + c] !== root.rgba[o + c]) differ++;
    }
  expect(shown).toHaveLength(span * span * 4);
  expect(differ, "the preview's pixels against Second's xwd -root").toBe(0);
  await approval.screenshot({ path: test.info().outputPath('fleet-approval-row.png') });
  const shownAfterMs = Date.now() - shownFrom;
  test.info().annotations.push({
    type: 'approval → shown on the fleet page',
    description: `${shownAfterMs} ms (AI call to visible, through the control window and the 100 ms fleet poll)`,
  });
  await expect(approval).toContainText('Second');
  await expect(approval).toHaveAttribute('data-desktop-id', secondId);
  await expect(tile(fleet, secondId).getByTestId('fleet-tile-approvals')).toHaveText('1');
  // Needs me: the tile with the approval comes first.
  await expect(fleet.getByTestId('fleet-tile').first()).toHaveAttribute(
    'data-desktop-id',
    secondId,
  );
  // By keyboard: Tab to Approve, wait until it is armed, Enter.
  const approve = approval.getByTestId('fleet-approval-approve');
  await tabTo(fleet, approve);
  await expect(approve).not.toHaveAttribute('aria-disabled', 'true');
  await fleet.keyboard.press('Enter');
  const clicked = await pending;
  expect(clicked.isError, clicked.text).toBe(false);
  await expect.poll(() => pointerLocation(second.env)).toEqual(target);
  expect(await pointerLocation(stack.xEnv)).toEqual(firstBefore);
  await expect(approval).toHaveCount(0);
  // Second's own window closed its panel: the first answer won.
  await expect(viewer2.getByTestId('confirm-panel')).toHaveCount(0);
});

test("an approval raised on Second while the person works in Desktop's full viewer is reached and answered there by keyboard alone", async () => {
  await viewer1.bringToFront();
  const firstBefore = await pointerLocation(stack.xEnv);
  const desktopArea = viewer1.locator('[data-remote-display]');
  const keys = countedKeyboard(viewer1);
  const keyboardOnDesktop = () =>
    viewer1.evaluate(() => document.activeElement?.hasAttribute('data-remote-display') ?? false);
  /** Focused by the keyboard, with its ring drawn (2 px or more, not none). */
  const ringShown = (button: Locator) =>
    button.evaluate((el) => {
      const style = getComputedStyle(el);
      return (
        el.matches(':focus-visible') &&
        style.outlineStyle !== 'none' &&
        parseFloat(style.outlineWidth) >= 2
      );
    });

  // Approve: the chord from the desktop area (which keeps Tab for the desktop), Tab, Enter.
  await desktopArea.focus();
  const target = { x: 210, y: 190 };
  const pending = callTool(ai2, 'click_at', { ...target, intent: 'Press the button' });
  const shown = viewer1.getByTestId('fleet-approval');
  await expect(shown).toHaveCount(1, { timeout: 10_000 });
  await expect(shown).toContainText('Second');
  // Desktop's own approval panel is not involved: the question is Second's.
  await expect(viewer1.getByTestId('confirm-panel')).toHaveCount(0);
  const deny = shown.getByTestId('fleet-approval-deny');
  const approve = shown.getByTestId('fleet-approval-approve');
  await keys.chord();
  await expect(deny).toBeFocused();
  expect(await ringShown(deny), 'a focus ring on Deny').toBe(true);
  await expect(viewer1.getByTestId('client-menu')).toHaveCount(0);
  await keys.press('Tab');
  await expect(approve).toBeFocused();
  expect(await ringShown(approve), 'a focus ring on Approve').toBe(true);
  await expect(approve).not.toHaveAttribute('aria-disabled', 'true');
  await keys.press('Enter');
  const clicked = await pending;
  expect(clicked.isError, clicked.text).toBe(false);
  expect(keys.presses()).toBe(3);
  await expect.poll(() => pointerLocation(second.env)).toEqual(target);
  expect(await pointerLocation(stack.xEnv)).toEqual(firstBefore);
  await expect(shown).toHaveCount(0);
  await expect.poll(keyboardOnDesktop, 'the keyboard back in the desktop area').toBe(true);

  // Deny: by Tab from the bar — the bar's last control, then Second's question before the desktop
  // area — and Space.
  const denied = callTool(ai2, 'click_at', { x: 30, y: 40 });
  await expect(shown).toHaveCount(1, { timeout: 10_000 });
  await viewer1.getByRole('button', { name: /^Account/ }).focus();
  await viewer1.keyboard.press('Tab');
  await expect(deny).toBeFocused();
  expect(await ringShown(deny), 'a focus ring on Deny reached by Tab').toBe(true);
  await viewer1.keyboard.press('Space');
  const answer = await denied;
  expect(answer.text).toMatch(/^permission_denied: /);
  await expect(shown).toHaveCount(0);
  expect(await pointerLocation(second.env)).toEqual(target);
});

test('tiles and their buttons are reached by Tab; a tile opens the full viewer', async () => {
  await fleet.bringToFront();
  for (const id of [firstId, secondId]) {
    await tabTo(fleet, tile(fleet, id).getByTestId('fleet-tile-open'));
    await tabTo(fleet, tile(fleet, id).getByTestId('fleet-tile-stop'));
  }
  // Focused, a tile paints at the display's rate.
  await tabTo(fleet, tile(fleet, firstId).getByTestId('fleet-tile-open'), { backwards: true });
  await expect(tile(fleet, firstId).locator('canvas')).toHaveAttribute('data-lively', 'true');
  const opened = await context.newPage();
  await opened.goto(fleet.url());
  await expect(tile(opened, secondId)).toBeVisible();
  await tile(opened, secondId).getByTestId('fleet-tile-open').click();
  await expect(opened).toHaveURL(new RegExp(`/\\?desktop=${secondId}$`));
  await expect(opened.getByTestId('connection-label')).toHaveText('Connected', {
    timeout: 30_000,
  });
  await expect(opened.getByTestId('charge-button')).toContainText('Second');
  await opened.close();
});

/**
 * The two tiles share their row's whole width (two on a 4K screen used its left third), and Stop
 * all sits right after the summary it acts on, in its row (it sat at the far right, detached).
 */
async function expectFleetFillsItsRow(page: Page, width: number): Promise<void> {
  const list = await page.getByRole('list', { name: /^Desktops/ }).boundingBox();
  const tiles = await page.getByTestId('fleet-tile').evaluateAll((els) =>
    els.map((el) => {
      const r = el.getBoundingClientRect();
      return { left: r.left, right: r.right, top: r.top };
    }),
  );
  expect(list).not.toBeNull();
  expect(tiles).toHaveLength(2);
  const firstRow = tiles.filter((t) => Math.abs(t.top - tiles[0]!.top) < 2);
  const rightmost = Math.max(...firstRow.map((t) => t.right));
  expect(
    list!.x + list!.width - rightmost,
    `room left empty right of the tiles at ${width} px`,
  ).toBeLessThan(2);
  if (width >= 1280) expect(firstRow, `both tiles in one row at ${width} px`).toHaveLength(2);
  const summary = await page.locator('.fleet__summary').boundingBox();
  const stopAll = await page.getByTestId('fleet-stop-all').boundingBox();
  const gap = stopAll!.x - (summary!.x + summary!.width);
  expect(gap, `Stop all right after the summary at ${width} px`).toBeGreaterThanOrEqual(0);
  expect(gap, `Stop all right after the summary at ${width} px`).toBeLessThan(48);
  expect(
    Math.abs(stopAll!.y + stopAll!.height / 2 - (summary!.y + summary!.height / 2)),
    `Stop all in the summary's row at ${width} px`,
  ).toBeLessThan(8);
}

test('axe finds nothing serious at 390, 1280 and 3840 px, the tiles fill their row; screenshots at each', async () => {
  await fleet.bringToFront();
  // An approval waiting, so the queue is checked too.
  const pending = callTool(ai1, 'click_at', { x: 50, y: 60 });
  await expect(fleet.getByTestId('fleet-approval')).toHaveCount(1, { timeout: 10_000 });
  for (const width of [390, 1280, 3840]) {
    await fleet.setViewportSize({ width, height: width === 3840 ? 2160 : 844 });
    await fleet.waitForTimeout(300);
    await expectNoSeriousViolations(fleet, `the fleet page at ${width} px`);
    await expectFleetFillsItsRow(fleet, width);
    const path = test.info().outputPath(`fleet-${width}.png`);
    await fleet.screenshot({ path, fullPage: true });
    await test.info().attach(`fleet at ${width} px`, { path, contentType: 'image/png' });
  }
  await fleet.setViewportSize({ width: 1280, height: 800 });
  await fleet.getByTestId('fleet-approval').getByTestId('fleet-approval-deny').click();
  const denied = await pending;
  expect(denied.isError).toBe(true);
});

test('Stop all stops both desktops: what waits is denied and nothing more reaches either X', async () => {
  await fleet.bringToFront();
  const before1 = await pointerLocation(stack.xEnv);
  const before2 = await pointerLocation(second.env);
  const waiting1 = callTool(ai1, 'click_at', { x: 77, y: 88 });
  const waiting2 = callTool(ai2, 'click_at', { x: 99, y: 111 });
  await expect(fleet.getByTestId('fleet-approval')).toHaveCount(2, { timeout: 10_000 });
  await fleet.getByTestId('fleet-stop-all').click();
  for (const outcome of [await waiting1, await waiting2]) {
    expect(outcome.isError).toBe(true);
    expect(outcome.text).toMatch(/^cancelled: Stopped by the person/);
  }
  for (const id of [firstId, secondId])
    await expect(tile(fleet, id).getByTestId('fleet-tile-mode')).toHaveText('Passive');
  for (const page of [viewer1, viewer2])
    await expect(page.getByTestId('mode-select')).toHaveValue('passive');
  for (const ai of [ai1, ai2]) {
    const refused = await callTool(ai, 'click_at', { x: 140, y: 150 });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/^permission_denied: click_at is not allowed in passive mode/);
  }
  expect(await pointerLocation(stack.xEnv)).toEqual(before1);
  expect(await pointerLocation(second.env)).toEqual(before2);
});

test('"New desktop" makes a local desktop and a token that reaches only it', async () => {
  await fleet.bringToFront();
  await fleet.getByTestId('fleet-new-name').fill('Agent three');
  await fleet.getByRole('button', { name: 'Make desktop and token' }).click();
  const secret = fleet.locator('#new-token-secret');
  await expect(secret).toHaveValue(/.{20,}/, { timeout: 15_000 });
  const token = await secret.inputValue();
  registerSecret(token);
  // The client configuration shown carries it.
  await expect(fleet.locator('.new-token')).toContainText('/mcp');
  await expect(fleet.getByTestId('fleet-tile')).toHaveCount(3, { timeout: 15_000 });
  const made = fleet.getByTestId('fleet-tile').filter({ hasText: 'Agent three' });
  const madeId = await made.getAttribute('data-desktop-id');
  expect(madeId).toBeTruthy();
  const agent = await connectMcpWithToken(stack.url, token, 'agent-three');
  try {
    const listed = await callTool(agent, 'list_desktops', {});
    expect(listed.isError, listed.text).toBe(false);
    const ids = (listed.structured?.desktops as Array<{ id: string }>).map((d) => d.id);
    expect(ids).toEqual([madeId]);
    const before = await pointerLocation(stack.xEnv);
    for (const other of [firstId, secondId]) {
      const refused = await callTool(agent, 'click_at', { x: 12, y: 13, desktop: other });
      expect(refused.isError).toBe(true);
      expect(refused.text).toMatch(/^permission_denied: /);
    }
    expect(await pointerLocation(stack.xEnv)).toEqual(before);
  } finally {
    await agent.close();
  }
});
