// The AI cannot blind or mislead the person with its overlays (issue 18): an opaque,
// click_through:false overlay over the whole desktop, labelled "STOP is disabled by the
// administrator", drawn through a real MCP client against the real bridge, Xvnc and Chromium.
// The desktop stays visible through it (page pixels against xwd -root: at most half the
// overlay's colour mixed in), a click reaches the X client under it (xev), Stop is on top at its
// centre and looks exactly as before, the Menu button opens the menu with no overlay colour on
// it, the layer stays inside the desktop area, and the label wears the AI's mark. At 390, 1280
// and 3840 px wide, with a screenshot of each to look at.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Locator, Page } from '@playwright/test';
import sharp from 'sharp';
import { expect, test } from './fixtures.js';
import {
  callTool,
  connectMcp,
  openControlViewer,
  pageOf,
  startXev,
} from './support/controlPlane.js';
import { labelWhenPainted, paintedOverlay, pointAt } from './support/overlays.js';
import { screenSize } from './support/xdesktop.js';
import { captureRoot } from '../packages/gateway/src/testing/desktopCapture.js';

const run = promisify(execFile);

const HOSTILE = 'STOP is disabled by the administrator';
const ROOT: Rgb = [0x20, 0xa0, 0x40];
const MAGENTA: Rgb = [255, 0, 255];
/** The most of the overlay's colour a desktop pixel may show (the veil is 0.5; a little slack). */
const MAX_MIX = 0.55;
const WIDTHS = [390, 1280, 3840] as const;

type Rgb = readonly [number, number, number];

let mcp: Client | undefined;
let stopXev: (() => void) | undefined;

test.beforeEach(async ({ page, stack }) => {
  await run('xsetroot', ['-solid', `rgb:20/a0/40`], { env: stack.xEnv });
  await openControlViewer(page, stack, 'assist');
  mcp = await connectMcp(stack);
});

test.afterEach(async ({ stack }) => {
  if (mcp !== undefined) {
    await callTool(mcp, 'clear_overlays', {});
    await mcp.close();
  }
  stopXev?.();
  await run('xsetroot', ['-solid', 'black'], { env: stack.xEnv });
});

function heightFor(width: number): number {
  return width <= 600 ? 844 : width >= 3000 ? 2160 : 800;
}

/**
 * How much of the overlay's colour the page shows over bare root, at desktop points whose whole
 * neighbourhood is root (so the display's scaling cannot blend anything else in) and that lie
 * outside `skip` (page rectangles: the label). Returns the largest mix and how many points.
 */
async function overlayMix(page: Page, env: NodeJS.ProcessEnv, skip: PageBox[]) {
  const desktop = await screenSize(env);
  const root = await captureRoot(env);
  const isRoot = (x: number, y: number) => {
    const i = (y * root.width + x) * 4;
    return root.rgba[i] === ROOT[0] && root.rgba[i + 1] === ROOT[1] && root.rgba[i + 2] === ROOT[2];
  };
  const png = await page.screenshot();
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const display = await box(page.locator('.remote-display__canvas'));
  const scale = display.width / desktop.width;
  const span = MAGENTA.map((c, i) => c - (ROOT[i] ?? 0));
  const spanSq = span.reduce((sum, d) => sum + d * d, 0);
  let worst = 0;
  let points = 0;
  const step = Math.max(8, Math.floor(desktop.width / 40));
  for (let y = 4; y < desktop.height - 4; y += step) {
    for (let x = 4; x < desktop.width - 4; x += step) {
      let bare = true;
      for (let dy = -4; dy <= 4 && bare; dy++)
        for (let dx = -4; dx <= 4 && bare; dx++) bare = isRoot(x + dx, y + dy);
      if (!bare) continue;
      const at = { x: display.x + (x + 0.5) * scale, y: display.y + (y + 0.5) * scale };
      if (skip.some((b) => inside(b, at, 6))) continue;
      const px = Math.floor(at.x);
      const py = Math.floor(at.y);
      if (px < 0 || py < 0 || px >= info.width || py >= info.height) continue;
      const i = (py * info.width + px) * 4;
      const got = [data[i] ?? 0, data[i + 1] ?? 0, data[i + 2] ?? 0];
      // The share of the way from the root's colour to the overlay's this pixel has gone.
      const mix =
        got.reduce((sum, c, k) => sum + (c - (ROOT[k] ?? 0)) * (span[k] ?? 0), 0) / spanSq;
      worst = Math.max(worst, mix);
      points++;
    }
  }
  return { worst, points };
}

interface PageBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

function inside(b: PageBox, p: { x: number; y: number }, margin = 0): boolean {
  return (
    p.x >= b.x - margin &&
    p.y >= b.y - margin &&
    p.x < b.x + b.width + margin &&
    p.y < b.y + b.height + margin
  );
}

async function box(locator: Locator): Promise<PageBox> {
  const b = await locator.boundingBox();
  if (b === null) throw new Error('not visible');
  return b;
}

/** Whether the point at the element's centre is the element (or inside it). */
async function onTopAtCentre(locator: Locator): Promise<boolean> {
  return locator.evaluate((el) => {
    const r = el.getBoundingClientRect();
    const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
    return hit !== null && el.contains(hit);
  });
}

/**
 * Whether the tag painted at `tag` wears the AI's badge (--ai-mark) at its start and its frame
 * (--ai-mark-edge) along its top edge. The layer is veiled (half its colour over the desktop),
 * so each is read against the overlay's pixel just under the tag over the same desktop: the
 * difference is half the difference of the colours painted there (badge − magenta, and so on).
 */
async function wearsTheMark(page: Page, tag: PageBox): Promise<{ badge: boolean; frame: boolean }> {
  const x = Math.round(tag.x);
  const y = Math.round(tag.y);
  const height = Math.round(tag.height);
  const png = await page.screenshot({ clip: { x, y, width: 12, height: height + 6 } });
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const rgb = (px: number, py: number) => {
    const i = (py * info.width + px) * 4;
    return [data[i] ?? 0, data[i + 1] ?? 0, data[i + 2] ?? 0];
  };
  const overlay = rgb(8, height + 4);
  const half = (painted: Rgb, at: number[]) =>
    painted.every(
      (c, k) => Math.abs((at[k] ?? 0) - (overlay[k] ?? 0) - (c - MAGENTA[k]!) / 2) <= 8,
    );
  return {
    badge: half([124, 58, 237], rgb(8, Math.round(height / 2))),
    frame: half([179, 107, 255], rgb(10, 0)),
  };
}

/** The share of pixels in a PNG that carry the overlay's magenta over anything (r, b ≫ g). */
async function magentaShare(png: Buffer): Promise<number> {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  let tinted = 0;
  for (let i = 0; i < data.length; i += 4) {
    const r = data[i] ?? 0;
    const g = data[i + 1] ?? 0;
    const b = data[i + 2] ?? 0;
    if (r - g > 60 && b - g > 60 && Math.abs(r - b) < 40) tinted++;
  }
  return tinted / (info.width * info.height);
}

test('an opaque full-desktop click_through:false overlay leaves the desktop seen and usable, the controls on top, and its label marked as the AI’s', async ({
  page,
  stack,
}, info) => {
  const desktop = await screenSize(stack.xEnv);
  const xev = await startXev(stack.xEnv);
  stopXev = xev.stop;
  const stop = page.getByRole('button', { name: 'Stop', exact: true });
  const stopBefore = await stop.screenshot();
  if (mcp === undefined) throw new Error('no MCP client');

  const drawn = await callTool(mcp, 'draw_overlay', {
    x: 0,
    y: 0,
    width: desktop.width,
    height: desktop.height,
    color: '#ff00ff',
    opacity: 1,
    click_through: false,
    label: HOSTILE,
  });
  expect(drawn.isError, drawn.text).toBe(false);
  const id = String(drawn.structured?.overlay_id);
  await expect.poll(() => paintedOverlay(page, id)).not.toBeNull();

  // The label: the hostile words, whole, led by the AI's badge and in the AI's frame — on the
  // canvas (its pixels: the badge's and the frame's colours over the veiled overlay's), and as
  // the page tag shown while the person points at it.
  const tagOnCanvas = await labelWhenPainted(page, id);
  expect(tagOnCanvas).toMatchObject({ text: HOSTILE, cut: false });
  expect(await wearsTheMark(page, tagOnCanvas)).toEqual({ badge: true, frame: true });
  await pointAt(page, id);
  const tag = page.locator(`[data-overlay-label="${id}"]`);
  await expect(tag).toHaveText(HOSTILE);
  const look = await tag.evaluate((el) => {
    const before = getComputedStyle(el, '::before');
    const own = getComputedStyle(el);
    return {
      mark: before.content,
      markBackground: before.backgroundColor,
      border: `${own.borderTopStyle} ${own.borderTopWidth} ${own.borderTopColor}`,
    };
  });
  expect(look).toEqual({
    mark: '"AI"',
    markBackground: 'rgb(124, 58, 237)',
    border: 'solid 1px rgb(179, 107, 255)',
  });
  // The viewer's own messages never wear it: no element outside the layer has a mark.
  expect(
    await page.evaluate(
      () =>
        Array.from(document.querySelectorAll('body *')).filter(
          (el) =>
            !el.closest('.overlay-clip') &&
            !['none', 'normal'].includes(getComputedStyle(el, '::before').content) &&
            getComputedStyle(el, '::before').content.includes('AI'),
        ).length,
    ),
  ).toBe(0);

  // A click on the desktop under it reaches the X client there.
  const target = await pageOf(
    page,
    desktop.width,
    xev.rect.x + xev.rect.width / 2,
    xev.rect.y + xev.rect.height / 2,
  );
  await page.mouse.click(target.x, target.y);
  await expect.poll(() => xev.log()).toContain('ButtonPress');

  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: heightFor(width) });
    await expect.poll(() => paintedOverlay(page, id)).not.toBeNull();
    await page.waitForTimeout(150); // the bar and the layer settle
    const where = `at ${width}px`;

    // The layer stays inside the desktop area, under the bar.
    const clip = await box(page.locator('.overlay-clip'));
    const area = await box(page.locator('.app__desktop'));
    expect(clip, where).toEqual(area);
    const bar = await box(page.locator('.status-bar'));
    expect(clip.y, where).toBeGreaterThanOrEqual(bar.y + bar.height - 1);
    // Pointing elsewhere (the bar): the tag is the painted one.
    await page.mouse.move(1, 1);
    const tagBox = await labelWhenPainted(page, id);
    expect(inside(clip, tagBox) && inside(clip, { x: tagBox.x, y: tagBox.y }), where).toBe(true);

    // The desktop shows through: no bare-root pixel has more than half the overlay's colour.
    const mix = await overlayMix(page, stack.xEnv, [tagBox]);
    expect(mix.points, `${where}: root points sampled`).toBeGreaterThan(20);
    expect(mix.worst, `${where}: the overlay's colour in the desktop`).toBeLessThanOrEqual(MAX_MIX);
    expect(mix.worst, `${where}: the overlay is still drawn`).toBeGreaterThan(0.3);

    // Stop: on top at its centre, and not one pixel of it changed by the overlay.
    expect(await onTopAtCentre(stop), where).toBe(true);
    if (width === 1280) expect((await stop.screenshot()).equals(stopBefore), where).toBe(true);
    await page.screenshot({ path: info.outputPath(`hostile-overlay-${width}.png`) });

    // The Menu button opens the menu, drawn over the overlay without a trace of its colour.
    const menuButton = page.getByRole('button', { name: 'Menu', exact: true });
    await expect(menuButton).toBeVisible();
    expect(await onTopAtCentre(menuButton), where).toBe(true);
    await menuButton.click();
    const menu = page.getByTestId('client-menu');
    await expect(menu).toBeVisible();
    expect(await onTopAtCentre(menu.locator('h2')), where).toBe(true);
    // (Its overlay list shows a small swatch of the overlay's colour; the layer above the menu
    // would tint all of it.)
    expect(await magentaShare(await menu.screenshot()), where).toBeLessThan(0.01);
    await page.screenshot({ path: info.outputPath(`hostile-overlay-${width}-menu.png`) });
    await page.keyboard.press('Escape');
    await expect(menu).toBeHidden();
  }
  // What the layer says it did (the pixels above are the proof).
  await expect(page.getByTestId('overlay-layer')).toHaveAttribute('data-veiled', 'true');
});
