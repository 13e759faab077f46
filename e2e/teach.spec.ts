// Teach mode (request_annotation) end to end, in real Chromium against a real bridge + Xvnc
// desktop with a real MCP client: the AI asks, the person draws two rectangles and a point with
// the mouse and writes notes (one of them markup, which stays text), presses Done, and the tool
// returns exactly the desktop pixels the page's own mapping (the display's box and the desktop
// size) puts under the pointer, with the monitor of each; nothing drawn reaches X (xev and the X
// pointer stay still). Also Cancel and Escape, a second request refused while one is open, Stop
// and an MCP cancellation closing it, max_items, a privacy mask and the timeout, the keyboard
// alone (crosshair, notes, Done), and the panel in view and axe-clean at a phone's, a laptop's
// and a 4K size (screenshots attached). The stack is this file's own: it saves a two-monitor
// layout (two halves of the desktop, so its size stays) with a privacy mask.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { API } from '@overlay-companion/protocol';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures.js';
import { expectNoSeriousViolations, tabTo } from './support/a11y.js';
import { startStack, type RunningStack } from './support/bridgeProcess.js';
import { callTool, connectMcp, openControlViewer, startXev } from './support/controlPlane.js';
import { dragBetween, displayMapping, spot, type Spot } from './support/pageMapping.js';
import { adminSession } from './support/signIn.js';
import { pointerLocation, screenSize, type Rect } from './support/xdesktop.js';

let stack: RunningStack;
let desktop: { width: number; height: number };
/** The privacy mask saved with the layout: the desktop's bottom-left 100 × 100 pixels. */
let mask: Rect;
let mcp: Client;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  stack = await startStack();
  desktop = await screenSize(stack.xEnv);
  const half = Math.floor(desktop.width / 2);
  mask = { x: 0, y: desktop.height - 100, width: 100, height: 100 };
  const session = await adminSession(stack);
  const saved = await session.request(API.layout, {
    method: 'PUT',
    body: {
      layout: {
        monitors: [
          { x: 0, y: 0, width: half, height: desktop.height, label: 'left' },
          { x: half, y: 0, width: desktop.width - half, height: desktop.height, label: 'right' },
        ],
        masks: [{ ...mask, label: 'private corner' }],
      },
    },
  });
  expect(saved.status, await saved.text()).toBe(200);
});

test.afterAll(async () => {
  await stack.stop();
});

test.beforeEach(async ({ page }) => {
  await openControlViewer(page, stack, 'passive');
  mcp = await connectMcp(stack);
  // The layout reached the control window: the AI's map has both monitors.
  await expect
    .poll(async () => {
      const info = await callTool(mcp, 'get_display_info', {});
      return (info.structured?.monitors as unknown[] | undefined)?.length;
    })
    .toBe(2);
});

test.afterEach(async () => {
  await mcp.close();
});

/** Monitor of a desktop x on this file's layout (two halves, full height). */
const monitorOf = (x: number) => (x < Math.floor(desktop.width / 2) ? 0 : 1);

/** The page's mapping for this stack's desktop. */
const mapping = (page: Page) => displayMapping(page, desktop.width);

function expectedRect(from: Spot, to: Spot, note?: string) {
  const x = Math.min(from.pixel.x, to.pixel.x);
  const y = Math.min(from.pixel.y, to.pixel.y);
  const width = Math.abs(from.pixel.x - to.pixel.x) + 1;
  return {
    kind: 'rect',
    x,
    y,
    width,
    height: Math.abs(from.pixel.y - to.pixel.y) + 1,
    ...(note === undefined ? {} : { note }),
    monitor_index: monitorOf(x + Math.floor((width - 1) / 2)),
  };
}

function ask(args: Record<string, unknown>) {
  return callTool(mcp, 'request_annotation', args, 120_000);
}

const buttonEvents = (log: string) => (log.match(/Button(Press|Release)/g) ?? []).length;

test('the person draws two rectangles and a point with notes; Done returns exactly those desktop pixels with their monitors, and nothing reaches X', async ({
  page,
}) => {
  const xev = await startXev(stack.xEnv);
  try {
    const prompt = 'Show me the <b>Save</b> button, the file name & where to click';
    const answer = ask({ prompt, max_items: 5 });
    const panel = page.getByTestId('teach-panel');
    await expect(panel).toBeVisible();
    // The AI's words are text: no element made from them.
    await expect(page.getByTestId('teach-prompt')).toHaveText(prompt);
    await expect(page.getByTestId('teach-prompt').locator('b')).toHaveCount(0);
    await expect(page).toHaveTitle(/^✎ Point something out — /);
    await expect(page.getByTestId('teach-announcer')).toContainText(prompt);
    const xBefore = await pointerLocation(stack.xEnv);

    const m = await mapping(page);
    const r = xev.rect;
    // Rectangle 1 over the xev window (monitor 1): a press there would reach X if it could.
    const a1 = spot(m, r.x + 20, r.y + 20);
    const b1 = spot(m, r.x + 140, r.y + 100);
    await dragBetween(page, a1, b1);
    // Rectangle 2 on monitor 0 (right of the panel, which floats top-left), dragged from
    // bottom-right to top-left.
    const a2 = spot(m, 600, 300);
    const b2 = spot(m, 430, 150);
    await dragBetween(page, a2, b2);
    // A point in the xev window.
    const p3 = spot(m, r.x + 200, r.y + 130);
    await page.mouse.click(p3.page.x, p3.page.y);

    const items = page.getByTestId('teach-item');
    await expect(items).toHaveCount(3);
    await expect(items.nth(0)).toContainText(
      `Rectangle ${Math.abs(b1.pixel.x - a1.pixel.x) + 1} × ${Math.abs(b1.pixel.y - a1.pixel.y) + 1} at ${a1.pixel.x}, ${a1.pixel.y}`,
    );
    await expect(items.nth(2)).toContainText(`Point at ${p3.pixel.x}, ${p3.pixel.y}`);
    // Drawn where the person drew them: the first mark covers the dragged page rectangle.
    const mark = await page.locator('[data-teach-mark="1"]').boundingBox();
    expect(mark).not.toBeNull();
    expect(Math.abs((mark?.x ?? 0) - a1.page.x)).toBeLessThanOrEqual(1.5);
    expect(Math.abs((mark?.y ?? 0) - a1.page.y)).toBeLessThanOrEqual(1.5);
    expect(Math.abs((mark?.x ?? 0) + (mark?.width ?? 0) - b1.page.x)).toBeLessThanOrEqual(1.5);
    await expect(page.locator('[data-teach-mark]')).toHaveCount(3);

    const html = '<b>html</b>';
    await page.getByRole('textbox', { name: 'Note for item 1' }).fill(html);
    await page.getByRole('textbox', { name: 'Note for item 3' }).fill('click here');
    await expect(panel.locator('b')).toHaveCount(0);
    await expect(page.getByRole('textbox', { name: 'Note for item 1' })).toHaveValue(html);
    await page.getByRole('button', { name: 'Done', exact: true }).click();

    const result = await answer;
    expect(result.isError, result.text).toBe(false);
    expect(result.structured).toMatchObject({
      completed: true,
      annotations: [
        expectedRect(a1, b1, html),
        expectedRect(a2, b2),
        {
          kind: 'point',
          x: p3.pixel.x,
          y: p3.pixel.y,
          note: 'click here',
          monitor_index: monitorOf(p3.pixel.x),
        },
      ],
    });
    // Both kinds of monitor came up (the layout is the AI's map).
    expect(result.structured?.annotations).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ monitor_index: 0 }),
        expect.objectContaining({ monitor_index: 1 }),
      ]),
    );
    expect(result.text).toContain('"<b>html</b>"');
    await expect(panel).toHaveCount(0);
    await expect(page.getByTestId('teach-layer')).toHaveCount(0);
    await expect(page).not.toHaveTitle(/Point something out/);

    // Nothing the person did in annotate mode reached the desktop.
    expect(await pointerLocation(stack.xEnv)).toEqual(xBefore);
    expect(buttonEvents(xev.log())).toBe(0);
  } finally {
    xev.stop();
  }
});

test('Cancel and Escape return completed: false with nothing; a second request while one is open is refused', async ({
  page,
}) => {
  const answer = ask({ prompt: 'Point at the clock' });
  await expect(page.getByTestId('teach-panel')).toBeVisible();
  const m = await mapping(page);
  const p = spot(m, 500, 300);
  await page.mouse.click(p.page.x, p.page.y);
  await expect(page.getByTestId('teach-item')).toHaveCount(1);

  const second = await ask({ prompt: 'Another question' });
  expect(second.isError).toBe(true);
  expect(second.text).toContain('still answering another request_annotation');
  await expect(page.getByTestId('teach-prompt')).toHaveText('Point at the clock');

  await page.getByRole('button', { name: 'Cancel', exact: true }).click();
  const cancelled = await answer;
  expect(cancelled.isError, cancelled.text).toBe(false);
  expect(cancelled.structured).toMatchObject({ completed: false, annotations: [] });
  await expect(page.getByTestId('teach-panel')).toHaveCount(0);

  // Escape on the drawing area (it has the keyboard after a click) cancels too.
  const again = ask({ prompt: 'Point at the clock again' });
  await expect(page.getByTestId('teach-panel')).toBeVisible();
  await page.mouse.click(p.page.x, p.page.y);
  await expect(page.getByTestId('teach-layer')).toBeFocused();
  await page.keyboard.press('Escape');
  const escaped = await again;
  expect(escaped.structured).toMatchObject({ completed: false, annotations: [] });
  await expect(page.getByTestId('teach-panel')).toHaveCount(0);
});

test('Stop closes the request and the call fails as cancelled; an MCP cancellation closes it too', async ({
  page,
}) => {
  const stopped = ask({ prompt: 'Show me the menu' });
  await expect(page.getByTestId('teach-panel')).toBeVisible();
  await page.getByRole('button', { name: 'Stop', exact: true }).click();
  const result = await stopped;
  expect(result.isError).toBe(true);
  expect(result.text).toMatch(/^cancelled: /);
  await expect(page.getByTestId('teach-panel')).toHaveCount(0);
  await expect(page.getByTestId('teach-layer')).toHaveCount(0);

  const abort = new AbortController();
  const withdrawn = mcp
    .callTool({ name: 'request_annotation', arguments: { prompt: 'Never mind' } }, undefined, {
      signal: abort.signal,
      timeout: 120_000,
    })
    .then(
      () => 'answered',
      () => 'aborted',
    );
  await expect(page.getByTestId('teach-panel')).toBeVisible();
  abort.abort();
  expect(await withdrawn).toBe('aborted');
  // The bridge told the viewer (tool_cancel): the panel goes, and the person is told why.
  await expect(page.getByTestId('teach-panel')).toHaveCount(0, { timeout: 10_000 });
  await expect(page.getByTestId('toast').last()).toContainText('ended');
});

test('max_items and the privacy mask refuse with a message; the timeout returns what was drawn', async ({
  page,
}) => {
  const answer = ask({ prompt: 'One thing only', max_items: 1, timeout_ms: 5_000 });
  await expect(page.getByTestId('teach-panel')).toBeVisible();
  await expect(page.locator('.teach-private')).toHaveCount(1);
  const m = await mapping(page);
  const inMask = spot(m, mask.x + 50, mask.y + 50);
  await page.mouse.click(inMask.page.x, inMask.page.y);
  await expect(page.getByTestId('teach-notice')).toContainText('private area “private corner”');
  await expect(page.getByTestId('teach-item')).toHaveCount(0);

  const p = spot(m, 640, 200);
  await page.mouse.click(p.page.x, p.page.y);
  await expect(page.getByTestId('teach-item')).toHaveCount(1);
  const q = spot(m, 700, 300);
  await page.mouse.click(q.page.x, q.page.y);
  await expect(page.getByTestId('teach-notice')).toContainText('at most 1 item');
  await expect(page.getByTestId('teach-item')).toHaveCount(1);

  const result = await answer;
  expect(result.isError, result.text).toBe(false);
  expect(result.structured).toMatchObject({
    completed: false,
    annotations: [
      { kind: 'point', x: p.pixel.x, y: p.pixel.y, monitor_index: monitorOf(p.pixel.x) },
    ],
  });
  expect(result.structured?.waited_ms).toBeGreaterThanOrEqual(4_900);
  await expect(page.getByTestId('teach-panel')).toHaveCount(0);
  await expect(page.getByTestId('toast').last()).toContainText('Time ran out');
});

test('keyboard only: Tab to the drawing area, arrows and Enter place a point, R draws a rectangle, Tab to the notes and Done', async ({
  page,
}) => {
  const half = Math.floor(desktop.width / 2);
  const answer = ask({
    prompt: 'Where is the login field?',
    region: { x: 100, y: 100, width: 200, height: 100 },
    monitor_index: 1,
  });
  await expect(page.getByTestId('teach-panel')).toBeVisible();
  // The asked area is highlighted where monitor 1's region lies on the desktop.
  const m = await mapping(page);
  const area = await page.getByTestId('teach-area').boundingBox();
  expect(Math.abs((area?.x ?? 0) - (m.box.x + (half + 100) * m.scale))).toBeLessThanOrEqual(1);
  expect(Math.abs((area?.width ?? 0) - 200 * m.scale)).toBeLessThanOrEqual(1);
  await expect(page.getByTestId('teach-panel')).toContainText(
    `200 × 100 at ${half + 100}, 100 (monitor 1)`,
  );
  await expectNoSeriousViolations(page, 'an open teach request');

  const layer = page.getByTestId('teach-layer');
  await tabTo(page, layer);
  // The crosshair starts at the asked area's centre: (half + 200, 150).
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Shift+ArrowDown');
  await page.keyboard.press('Shift+ArrowDown');
  await expect(page.getByTestId('teach-crosshair-text')).toHaveText(
    `Crosshair at ${half + 230}, 350`,
  );
  await page.keyboard.press('Enter');
  await page.keyboard.press('r');
  for (let i = 0; i < 5; i++) await page.keyboard.press('Control+ArrowLeft');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('r');
  await expect(page.getByTestId('teach-item')).toHaveCount(2);

  const note = page.getByRole('textbox', { name: 'Note for item 1' });
  await tabTo(page, note);
  await page.keyboard.type('the field');
  await tabTo(page, page.getByRole('button', { name: 'Done', exact: true }));
  await page.keyboard.press('Enter');

  const result = await answer;
  expect(result.structured).toMatchObject({
    completed: true,
    annotations: [
      { kind: 'point', x: half + 230, y: 350, note: 'the field', monitor_index: 1 },
      { kind: 'rect', x: half + 225, y: 340, width: 6, height: 11, monitor_index: 1 },
    ],
  });
});

for (const size of [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
  { width: 3840, height: 2160 },
]) {
  test(`at ${size.width}×${size.height} the panel and the drawing area are in view, work and are axe-clean`, async ({
    page,
  }, testInfo) => {
    await page.setViewportSize(size);
    await expect
      .poll(async () => (await page.locator('.remote-display__canvas').boundingBox())?.width)
      .toBeLessThanOrEqual(size.width);
    const answer = ask({
      prompt: 'Show me the terminal window and tell me what it is for.',
      region: { x: 700, y: 0, width: 580, height: 400 },
    });
    await expect(page.getByTestId('teach-panel')).toBeVisible();
    const m = await mapping(page);
    // Right of the panel (it floats left, away from the asked area) and above a phone's sheet.
    const rectFrom = spot(m, 450, 100);
    const rectTo = spot(m, 620, 300);
    await dragBetween(page, rectFrom, rectTo);
    const p = spot(m, 560, 250);
    await page.mouse.click(p.page.x, p.page.y);
    await expect(page.getByTestId('teach-item')).toHaveCount(2);
    await page.getByRole('textbox', { name: 'Note for item 1' }).fill('the terminal');

    for (const name of ['Done', 'Cancel', 'Remove item 2']) {
      const button = page.getByRole('button', { name, exact: true });
      // On a phone the panel is a sheet that scrolls, as a person would scroll it.
      await button.scrollIntoViewIfNeeded();
      const box = await button.boundingBox();
      if (!box) throw new Error(`${name} is not visible`);
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.y).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(size.width);
      expect(box.y + box.height).toBeLessThanOrEqual(size.height);
    }
    const png = await page.screenshot({
      path: testInfo.outputPath(`teach-${size.width}x${size.height}.png`),
    });
    await testInfo.attach(`teach mode at ${size.width}x${size.height}`, {
      body: png,
      contentType: 'image/png',
    });
    await expectNoSeriousViolations(page, `teach mode at ${size.width}px`);

    await page.getByRole('button', { name: 'Done', exact: true }).click();
    const result = await answer;
    expect(result.structured).toMatchObject({
      completed: true,
      annotations: [
        expectedRect(rectFrom, rectTo, 'the terminal'),
        {
          kind: 'point',
          x: p.pixel.x,
          y: p.pixel.y,
          monitor_index: 0,
        },
      ],
    });
  });
}
