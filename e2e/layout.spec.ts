// The layout editor (/layout) in real Chromium against a real bridge (serve --desktop local):
// Suggest lays the screens out at 1:1 (scale 1, the layout just holding them); monitors dragged
// and resized with the mouse land exactly where the page says and GET /api/layout returns exactly
// that; the picture keeps its scale while a drag lasts; a drop 10 screen px from the other
// monitor's edge lands flush; an overlap is refused with the monitors named; the arrow keys move a
// monitor; a privacy mask drawn on the desktop is saved (hatched, its label shown as text) and
// deleted with the keyboard; the saved layout survives restarting the bridge on the same data dir;
// an untouched page, or a change undone, shows no "Unsaved changes"; "Open windows" opens one
// viewer per monitor at viewerUrlFor's address and lists the same addresses, and the plain viewer
// offers the same windows for a two-monitor layout (Stop still on top); "Detect my screens" reads
// the Window Management API when granted and says so when not; the page is axe-clean and fits at a
// phone's, a laptop's and a 4K width (screenshots attached).
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  API,
  PAGES,
  layoutBounds,
  viewerUrlFor,
  type LayoutAnswer,
  type MonitorLayout,
} from '@overlay-companion/protocol';
import { expect, test, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { signIn } from '../apps/bridge/src/testing/browserSession.js';
import { LayoutPage, type DesktopRect } from './pages/LayoutPage.js';
import { expectNoSeriousViolations, tabTo } from './support/a11y.js';
import { startStack, type RunningStack } from './support/bridgeProcess.js';
import { signInContextAs } from './support/signIn.js';
import { removeDataDir } from '../apps/bridge/src/testing/dataDirs.js';

let stack: RunningStack;
let dataDir: string;
/** The admin made at the first start (a restart must keep signing in with the same password). */
let admin: { username: string; password: string };
const contexts: BrowserContext[] = [];

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'oc-e2e-layout-'));
  stack = await startStack({ dataDir });
  admin = stack.admin;
});

test.afterAll(async () => {
  await stack.stop();
  await removeDataDir(dataDir);
});

test.afterEach(async () => {
  await Promise.all(contexts.splice(0).map((context) => context.close()));
});

async function openEditor(
  browser: Browser,
  viewport = { width: 1280, height: 800 },
): Promise<{ page: Page; layout: LayoutPage; context: BrowserContext }> {
  const context = await browser.newContext({ viewport, screen: { width: 1920, height: 1080 } });
  contexts.push(context);
  await signInContextAs(context, stack.url, admin);
  const page = await context.newPage();
  const layout = new LayoutPage(page, stack.url);
  await layout.open();
  return { page, layout, context };
}

/** GET /api/layout as the admin, over HTTP. */
async function savedLayout(): Promise<LayoutAnswer> {
  const session = await signIn(stack.url, admin.username, admin.password);
  const answer = await session.request(API.layout);
  expect(answer.status).toBe(200);
  return (await answer.json()) as LayoutAnswer;
}

const geometry = ({ x, y, width, height }: DesktopRect): DesktopRect => ({ x, y, width, height });

/** The toolbar's word for the editor against the saved layout ("Saved", "Unsaved changes", …). */
const saveState = (page: Page) => page.getByRole('toolbar', { name: 'Layout' }).getByRole('status');

test('dragging with the mouse assigns the viewports, snapping to the other monitor; GET returns them exactly', async ({
  browser,
}) => {
  const { page, layout } = await openEditor(browser);
  // Nothing saved yet: this browser's screen (1920 × 1080) as monitor 1.
  expect(await layout.page.getByRole('group', { name: /^Monitor \d/ }).count()).toBe(1);
  await expect(layout.fields('Monitor 1').getByLabel('Screen width')).toHaveValue('1920');
  // A starting point, not a change the person made.
  await expect(saveState(page)).toHaveText('Not saved yet');
  await expect(page.getByText('Unsaved changes')).toHaveCount(0);
  await layout.addScreen(1280, 1024);
  await expect(layout.monitor(1)).toBeVisible();
  await page.getByRole('button', { name: 'Suggest' }).click();
  const first = await layout.rectOf(layout.monitor(0));
  let second = await layout.rectOf(layout.monitor(1));
  // Side by side from the left at 1:1: each monitor its screen's size, each window at scale 1,
  // and the layout asks for a desktop that just holds them.
  expect(first).toEqual({ x: 0, y: 0, width: 1920, height: 1080 });
  expect(second).toEqual({ x: 1920, y: 0, width: 1280, height: 1024 });
  await expect(layout.monitor(0)).toContainText(/screen 1920 × 1080, scale 1(?![.\d])/);
  await expect(layout.monitor(1)).toContainText(/screen 1280 × 1024, scale 1(?![.\d])/);
  await expect(page.getByText(/This layout asks for 3200 × 1080\./)).toBeVisible();

  // A free drag: down to half the left monitor's height and a little left, far from any edge.
  const scale = await layout.scale();
  const dy = Math.round((first.height / 2) * scale);
  await layout.dragBy(layout.monitor(1), 60, dy);
  const moved = await layout.rectOf(layout.monitor(1));
  expect(moved.x).toBe(Math.round(second.x + 60 / scale));
  expect(moved.y).toBe(Math.round(second.y + dy / scale));
  second = moved;

  // While a drag lasts the picture keeps its scale, though the layout grows under the pointer;
  // after the drop it is redrawn to hold the larger layout.
  const held = await layout.scale();
  const at = await layout.monitor(1).boundingBox();
  if (at === null) throw new Error('Monitor 2 is not visible.');
  const grip = { x: at.x + at.width / 2, y: at.y + at.height / 2 };
  await page.mouse.move(grip.x, grip.y);
  await page.mouse.down();
  await page.mouse.move(grip.x + 100, grip.y + 150, { steps: 8 });
  await expect(layout.monitor(1)).toHaveAttribute(
    'data-x',
    String(Math.round(second.x + 100 / held)),
  );
  expect(await layout.scale()).toBe(held);
  await page.mouse.up();
  await expect.poll(() => layout.scale()).toBeLessThan(held);
  second = await layout.rectOf(layout.monitor(1));

  // Dropped 10 screen pixels right of the left monitor's right edge (tens of desktop pixels at
  // this zoom; the old 8-pixel pull left such a gap): lands flush.
  let now = await layout.scale();
  const flush = Math.round((first.x + first.width - second.x) * now) + 10;
  await layout.dragBy(layout.monitor(1), flush, 0);
  const snapped = await layout.rectOf(layout.monitor(1));
  expect([snapped.x, snapped.y]).toEqual([first.x + first.width, second.y]);
  second = snapped;

  // Dropped 3 screen pixels off the top: snaps to it, and stays flush.
  now = await layout.scale();
  const up = Math.round((0 - second.y) * now) + 3;
  await layout.dragBy(layout.monitor(1), 3, up);
  second = await layout.rectOf(layout.monitor(1));
  expect([second.x, second.y]).toEqual([first.x + first.width, 0]);

  // Resizing keeps the screen's shape; pushed into the other monitor it overlaps, and Save says so.
  await layout.dragHandle(layout.monitor(0), 'e', 30, 0);
  const wider = await layout.rectOf(layout.monitor(0));
  expect(wider.width).toBeGreaterThan(first.width);
  expect(wider.height).toBe(Math.round((wider.width * 1080) / 1920));
  await expect(layout.monitor(0)).toHaveAccessibleName(/overlaps another monitor/);
  await layout.saveButton.click();
  await expect(page.getByRole('alert')).toContainText('Monitor 2: (');
  await expect(page.getByRole('alert')).toContainText('overlaps monitor 0');
  // Back: the right edge snaps onto the other monitor's left edge again.
  await layout.dragHandle(layout.monitor(0), 'e', -30, 0);
  expect(geometry(await layout.rectOf(layout.monitor(0)))).toEqual(first);

  // The arrow keys: 1 px, Shift 10 px.
  await layout.monitor(1).focus();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Shift+ArrowDown');
  await expect(layout.monitor(1)).toHaveAttribute('data-y', '11');

  await layout.save();
  const saved = await savedLayout();
  expect(saved.layout).toEqual({
    monitors: [
      { ...first, screen: { width: 1920, height: 1080 } },
      { ...second, y: 11, screen: { width: 1280, height: 1024 } },
    ],
    masks: [],
  });
  expect(saved.updated_at).toBeGreaterThan(0);
});

test('a privacy mask drawn on the desktop is saved, hatched, labelled as text, and Delete removes one', async ({
  browser,
}) => {
  const { page, layout } = await openEditor(browser);
  const before = (await savedLayout()).layout as MonitorLayout;
  const left = before.monitors[0] as DesktopRect;
  await page.getByRole('button', { name: 'Draw privacy masks' }).click();
  await expect(page.getByRole('button', { name: 'Draw privacy masks' })).toHaveAttribute(
    'aria-pressed',
    'true',
  );
  // Two masks inside the left monitor, away from its edges (no snapping).
  for (const [from, to] of [
    [
      [0.2, 0.2],
      [0.5, 0.6],
    ],
    [
      [0.6, 0.3],
      [0.8, 0.5],
    ],
  ] as const) {
    await layout.mouseDrag(
      await layout.pagePoint(left.width * from[0], left.height * from[1]),
      await layout.pagePoint(left.width * to[0], left.height * to[1]),
    );
  }
  await expect(layout.mask(1)).toBeVisible();
  const drawn = await layout.rectOf(layout.mask(0));
  const scale = await layout.scale();
  // Where the mouse went, to within the rounding of one screen pixel.
  expect(Math.abs(drawn.x - left.width * 0.2)).toBeLessThanOrEqual(1 / scale + 1);
  expect(Math.abs(drawn.width - left.width * 0.3)).toBeLessThanOrEqual(2 / scale + 1);
  await page.keyboard.press('Escape');
  await expect(page.getByRole('button', { name: 'Draw privacy masks' })).toHaveAttribute(
    'aria-pressed',
    'false',
  );

  const hatch = await layout.mask(0).evaluate((el) => getComputedStyle(el).backgroundImage);
  expect(hatch).toContain('repeating-linear-gradient');

  const label = '<img src=x onerror="alert(1)"> mail';
  await layout.fields('Mask 1').getByLabel('Label').fill(label);
  // Its name, as text: the mask's accessible name and tooltip (the picture's own label may be
  // shortened to fit, labelSpots.ts), and no element made of it anywhere on the picture.
  const maskName = `Mask 1 “${label}”`;
  await expect(layout.mask(0)).toHaveAttribute('title', maskName);
  await expect(layout.mask(0)).toHaveAccessibleName(new RegExp(`^${escapeRegExp(maskName)}: `));
  expect(await page.locator('.layout-canvas img').count()).toBe(0);

  // The second one, removed from the keyboard.
  await layout.mask(1).focus();
  await page.keyboard.press('Delete');
  await expect(layout.mask(1)).toHaveCount(0);

  await layout.save();
  expect((await savedLayout()).layout).toEqual({ ...before, masks: [{ ...drawn, label }] });
});

test('"Open windows" opens one viewer per monitor at its viewport address and lists them', async ({
  browser,
}) => {
  const { page, context } = await openEditor(browser);
  const saved = (await savedLayout()).layout as MonitorLayout;
  const expected = saved.monitors.map((m, i) =>
    new URL(`${PAGES.viewer}${viewerUrlFor(m, i)}`, stack.url).toString(),
  );
  expect(expected[1]).toContain(`vx=${saved.monitors[1]?.x}&vy=11&vw=`);
  const list = page.getByRole('list', { name: 'Viewer addresses' });
  await expect(list.getByRole('listitem')).toHaveText(
    expected.map((url, i) => new RegExp(`Monitor ${i + 1}.*${escapeRegExp(url)}`)),
  );

  const windows: Page[] = [];
  context.on('page', (popup) => windows.push(popup));
  await page.getByRole('button', { name: 'Open windows' }).click();
  await expect.poll(() => windows.length).toBe(expected.length);
  await Promise.all(windows.map((w) => w.waitForURL(/\?vx=/)));
  expect(windows.map((w) => w.url()).sort()).toEqual([...expected].sort());
  await expect(page.getByRole('status').filter({ hasText: 'press F11' })).toBeVisible();
  await Promise.all(windows.map((w) => w.close()));

  // Each address also opens on its own (one click, one window).
  context.removeAllListeners('page');
  const one = context.waitForEvent('page');
  await page.getByRole('button', { name: 'Open Monitor 2' }).click();
  const second = await one;
  await second.waitForURL(/\?vx=/);
  expect(second.url()).toBe(expected[1]);
  await second.close();
});

test('an untouched page, and a change undone, shows no "Unsaved changes"', async ({ browser }) => {
  const { page, layout } = await openEditor(browser);
  await expect(saveState(page)).toHaveText('Saved');
  await expect(page.getByText('Unsaved changes')).toHaveCount(0);
  await layout.monitor(1).focus();
  await page.keyboard.press('ArrowRight');
  await expect(saveState(page)).toHaveText('Unsaved changes');
  await page.keyboard.press('ArrowLeft');
  await expect(saveState(page)).toHaveText('Saved');
  // A label typed and taken away again.
  const label = layout.fields('Monitor 1').getByLabel('Label');
  await label.fill('left');
  await expect(saveState(page)).toHaveText('Unsaved changes');
  await label.fill('');
  await expect(saveState(page)).toHaveText('Saved');
  await expect(page.getByText('You have unsaved changes')).toHaveCount(0);
});

test('the plain viewer offers to open the monitor windows of a two-monitor layout, Stop still on top', async ({
  browser,
}) => {
  const saved = (await savedLayout()).layout as MonitorLayout;
  expect(saved.monitors).toHaveLength(2);
  const expected = saved.monitors.map((m, i) =>
    new URL(`${PAGES.viewer}${viewerUrlFor(m, i)}`, stack.url).toString(),
  );
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  contexts.push(context);
  await signInContextAs(context, stack.url, admin);
  const page = await context.newPage();
  // Where sign-in lands: the whole desktop in one window, no vx=….
  await page.goto(stack.url);
  const offer = page.getByRole('region', { name: 'Monitor windows' });
  await expect(offer).toContainText('Your layout has 2 monitors');
  for (const viewport of [
    { width: 390, height: 844 },
    { width: 1280, height: 800 },
    { width: 3840, height: 2160 },
  ]) {
    await page.setViewportSize(viewport);
    const where = `at ${viewport.width}px`;
    const probe = await page.evaluate(() => {
      const stop = Array.from(document.querySelectorAll('button')).find(
        (b) => b.textContent?.trim() === 'Stop',
      );
      const card = document.querySelector('[data-testid="monitor-offer"]');
      if (!stop || !card) return null;
      const s = stop.getBoundingClientRect();
      const c = card.getBoundingClientRect();
      const hit = document.elementFromPoint(s.x + s.width / 2, s.y + s.height / 2);
      return {
        hitIsStop: hit !== null && stop.contains(hit),
        apart: c.bottom <= s.top || c.top >= s.bottom || c.right <= s.left || c.left >= s.right,
        inside: c.left >= 0 && c.top >= 0 && c.right <= innerWidth && c.bottom <= innerHeight,
      };
    });
    expect(probe, `${where}: Stop and the offer are on the page`).not.toBeNull();
    expect(probe, where).toEqual({ hitIsStop: true, apart: true, inside: true });
    const shot = test.info().outputPath(`viewer-offer-${viewport.width}.png`);
    await page.screenshot({ path: shot });
    await test.info().attach(`viewer-offer-${viewport.width}.png`, {
      path: shot,
      contentType: 'image/png',
    });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  await expectNoSeriousViolations(page, 'the viewer offering monitor windows');

  // From the keyboard: the same windows the layout page's "Open windows" opens.
  const windows: Page[] = [];
  context.on('page', (popup) => windows.push(popup));
  await offer.getByRole('button', { name: 'Open monitor windows' }).focus();
  await page.keyboard.press('Enter');
  await expect.poll(() => windows.length).toBe(expected.length);
  await Promise.all(windows.map((w) => w.waitForURL(/\?vx=/)));
  expect(windows.map((w) => w.url()).sort()).toEqual([...expected].sort());
  await expect(offer).toContainText('press F11');
  // A monitor window makes no offer of its own (once the layout reached it: its mask shows).
  const one = windows[0] as Page;
  await expect(one.locator('[data-privacy-mask]')).toHaveCount(saved.masks.length);
  await expect(one.getByRole('region', { name: 'Monitor windows' })).toHaveCount(0);
  await Promise.all(windows.map((w) => w.close()));

  // Closed, it stays closed for this layout.
  await offer.getByRole('button', { name: 'Close' }).focus();
  await page.keyboard.press('Enter');
  await expect(offer).toHaveCount(0);
  await page.reload();
  await expect(page.locator('[data-privacy-mask]')).toHaveCount(saved.masks.length);
  await expect(offer).toHaveCount(0);
});

test('the saved layout survives a bridge restart on the same data dir', async ({ browser }) => {
  const before = await savedLayout();
  expect(before.layout?.masks).toHaveLength(1);
  await stack.stop();
  stack = await startStack({ dataDir, env: { OC_ADMIN_PASSWORD: admin.password } });
  const after = await savedLayout();
  expect({ layout: after.layout, updated_at: after.updated_at }).toEqual({
    layout: before.layout,
    updated_at: before.updated_at,
  });
  const { layout } = await openEditor(browser);
  const monitors = (before.layout as MonitorLayout).monitors;
  for (const [i, m] of monitors.entries()) {
    expect(await layout.rectOf(layout.monitor(i))).toEqual(geometry(m));
  }
  await expect(layout.mask(0)).toBeVisible();
  await expect(layout.page.getByText('Unsaved changes')).toHaveCount(0);
});

test('keyboard only: tab to a monitor, move it with the arrow keys, tab to Save', async ({
  browser,
}) => {
  const { page, layout } = await openEditor(browser);
  const before = (await savedLayout()).layout as MonitorLayout;
  await tabTo(page, layout.monitor(1));
  await expect(layout.monitor(1)).toBeFocused();
  const ring = await layout.monitor(1).evaluate((el) => getComputedStyle(el).outlineStyle);
  expect(ring).toBe('solid');
  await page.keyboard.press('Shift+ArrowRight');
  await page.keyboard.press('ArrowRight');
  await expect(layout.monitor(1)).toHaveAccessibleName(
    new RegExp(`at ${(before.monitors[1]?.x ?? 0) + 11}, 11$`),
  );
  await tabTo(page, layout.saveButton, { backwards: true });
  await page.keyboard.press('Enter');
  await expect(page.getByRole('status').filter({ hasText: /^Saved at / })).toBeVisible();
  const after = (await savedLayout()).layout as MonitorLayout;
  expect(after.monitors[1]).toEqual({
    ...before.monitors[1],
    x: (before.monitors[1]?.x ?? 0) + 11,
  });
  // Put it back for the specs after this one.
  await layout.monitor(1).focus();
  await page.keyboard.press('Shift+ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  await layout.save();
});

test('"Detect my screens" reads the Window Management API when granted, and says so when not', async ({
  browser,
}) => {
  const { page, layout } = await openEditor(browser);
  await page.getByRole('button', { name: 'Detect my screens' }).click();
  // Headless Chromium answers the permission prompt with "no".
  await expect(page.getByRole('alert')).toContainText(
    'did not allow this page to see your screens',
  );

  const granted = await openEditor(browser);
  const cdp = await granted.context.newCDPSession(granted.page);
  const { targetInfo } = (await cdp.send('Target.getTargetInfo')) as {
    targetInfo: { browserContextId?: string };
  };
  const browserCdp = await browser.newBrowserCDPSession();
  await browserCdp.send('Browser.grantPermissions', {
    permissions: ['windowManagement'],
    origin: new URL(stack.url).origin,
    ...(targetInfo.browserContextId === undefined
      ? {}
      : { browserContextId: targetInfo.browserContextId }),
  });
  await granted.page.getByRole('button', { name: 'Detect my screens' }).click();
  await expect(
    granted.page.getByRole('status').filter({ hasText: /^Found 1 screen/ }),
  ).toBeVisible();
  const size = await granted.page.evaluate(() => [screen.width, screen.height]);
  await expect(granted.layout.fields('Monitor 1').getByLabel('Screen width')).toHaveValue(
    String(size[0]),
  );
  expect(await granted.page.getByRole('group', { name: /^Monitor \d/ }).count()).toBe(1);
  void layout;
});

for (const viewport of [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
  { width: 3840, height: 2160 },
]) {
  const size = `${viewport.width}×${viewport.height}`;
  test(`fits and is axe-clean at ${size}`, async ({ browser }) => {
    const { page, layout } = await openEditor(browser, viewport);
    await expect(layout.mask(0)).toBeVisible();
    // The picture fits the page: no sideways scrolling.
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
    const canvas = await layout.canvas.boundingBox();
    expect(canvas?.width ?? 0).toBeLessThanOrEqual(viewport.width);
    const bounds = layoutBounds((await savedLayout()).layout as MonitorLayout);
    expect(Number(await layout.canvas.getAttribute('data-world-width'))).toBeGreaterThanOrEqual(
      bounds.width,
    );
    await expectNoSeriousViolations(page, `/layout (${size})`);
    // Kept in the test's output folder, to look at.
    const shot = test.info().outputPath(`layout-${size}.png`);
    await page.screenshot({ path: shot, fullPage: true });
    await test.info().attach(`layout-${size}.png`, { path: shot, contentType: 'image/png' });
  });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
