// The fleet view (/fleet, P13 items 1–2) end to end: the stack's sandboxed "Desktop" and a
// second real Xvnc ("Second", a VNC server on a loopback port added over /api/desktops), each with
// its own control window open and its own MCP client (the SDK's). The fleet page shows both tiles
// live (pixels on each tile's canvas, changing when the desktop does); an approval from Second is
// answered from the fleet page by keyboard and its click reaches Second's X only (xdotool
// getmouselocation on each display); an approval raised on Second while the person is in
// Desktop's full viewer is shown and answered there; Stop all stops both (nothing more reaches
// either X); a tile opens the full viewer; tiles and buttons are reached by Tab; axe finds nothing
// serious at 390, 1280 and 3840 px, and screenshots of the page at those widths are attached.
/// <reference lib="dom" />
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startLocalDesktop, type TcpLocalDesktop } from '@overlay-companion/gateway';
import { API, type DesktopView } from '@overlay-companion/protocol';
import type { BrowserContext, Page } from '@playwright/test';
import { registerSecret } from '../apps/bridge/src/testing/testLogs.js';
import { expect, test } from './fixtures.js';
import type { RunningStack } from './support/bridgeProcess.js';
import { expectNoSeriousViolations, tabTo } from './support/a11y.js';
import {
  callTool,
  connectMcp,
  connectMcpWithToken,
  openViewerAt,
  setViewerMode,
  viewerRole,
} from './support/controlPlane.js';
import { adminSession, signInContextAs } from './support/signIn.js';
import { fleetTile, listDesktops, removeDesktopsBut } from './support/fleetPage.js';
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

test.beforeAll(async ({ browser, stack: running }) => {
  test.setTimeout(120_000);
  stack = running;
  second = await startLocalDesktop({ rfbTcp: true, password: SECOND_PASSWORD, xterm: true });
  registerSecret(SECOND_PASSWORD);
  await run('xsetroot', ['-solid', SECOND_ROOT], { env: second.env });
  const admin = await adminSession(stack);
  const added = await admin.request(API.desktops, {
    body: {
      name: 'Second',
      kind: 'vnc',
      params: { host: '127.0.0.1', port: second.port },
      secrets: { password: SECOND_PASSWORD },
    },
  });
  expect(added.status, await added.clone().text()).toBe(201);
  secondId = ((await added.json()) as DesktopView).id;
  // The command line's desktop is made when the directory first loads (an AI call does it).
  ai1 = await connectMcp(stack);
  expect((await callTool(ai1, 'list_desktops', {})).isError).toBe(false);
  const listed = await listDesktops(admin);
  const first = listed.find((d) => d.id !== secondId);
  if (first === undefined) throw new Error(`no first desktop: ${JSON.stringify(listed)}`);
  firstId = first.id;
  expect((await callTool(ai1, 'select_desktop', { desktop: firstId })).isError).toBe(false);
  ai2 = await connectMcp(stack);
  expect((await callTool(ai2, 'select_desktop', { desktop: secondId })).isError).toBe(false);

  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await signInContextAs(context, stack.url, stack.admin);
  // One control window per desktop: they run each desktop's AI calls and ask its approvals.
  viewer1 = await context.newPage();
  await openViewerAt(viewer1, stack, `/?desktop=${firstId}`);
  viewer2 = await context.newPage();
  await openViewerAt(viewer2, stack, `/?desktop=${secondId}`);
  await expect.poll(() => viewerRole(viewer1)).toBe('control');
  await expect.poll(() => viewerRole(viewer2)).toBe('control');
  for (const page of [viewer1, viewer2]) await setViewerMode(page, 'assist');
  fleet = await context.newPage();
  await fleet.goto(new URL('/fleet', stack.url).toString());
});

test.afterAll(async () => {
  await ai1?.close();
  await ai2?.close();
  await context?.close();
  await removeDesktopsBut(await adminSession(stack), firstId);
  await second?.stop();
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

test("an approval raised on Second while the person is in Desktop's full viewer is shown and answered there", async () => {
  await viewer1.bringToFront();
  const firstBefore = await pointerLocation(stack.xEnv);
  const target = { x: 210, y: 190 };
  const pending = callTool(ai2, 'click_at', target);
  const shown = viewer1.getByTestId('fleet-approval');
  await expect(shown).toHaveCount(1, { timeout: 10_000 });
  await expect(shown).toContainText('Second');
  // Desktop's own approval panel is not involved: the question is Second's.
  await expect(viewer1.getByTestId('confirm-panel')).toHaveCount(0);
  const approve = shown.getByTestId('fleet-approval-approve');
  await expect(approve).not.toHaveAttribute('aria-disabled', 'true');
  await approve.click();
  const clicked = await pending;
  expect(clicked.isError, clicked.text).toBe(false);
  await expect.poll(() => pointerLocation(second.env)).toEqual(target);
  expect(await pointerLocation(stack.xEnv)).toEqual(firstBefore);
  await expect(shown).toHaveCount(0);
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

test('axe finds nothing serious at 390, 1280 and 3840 px; screenshots at each', async () => {
  await fleet.bringToFront();
  // An approval waiting, so the queue is checked too.
  const pending = callTool(ai1, 'click_at', { x: 50, y: 60 });
  await expect(fleet.getByTestId('fleet-approval')).toHaveCount(1, { timeout: 10_000 });
  for (const width of [390, 1280, 3840]) {
    await fleet.setViewportSize({ width, height: width === 3840 ? 2160 : 844 });
    await fleet.waitForTimeout(300);
    await expectNoSeriousViolations(fleet, `the fleet page at ${width} px`);
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
