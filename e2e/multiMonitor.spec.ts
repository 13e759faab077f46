// One desktop across several windows, one per monitor, as the person's layout says: each window
// shows its viewport (the seed's vx, vy, vw, vh, scale), overlays appear split across them at
// the right pixels, the person's click in window 2 lands at the right desktop pixel (xev on the
// X side), take_screenshot with monitor_index returns that monitor's pixels (xwd -root), the
// desktop's size never follows a window, closing the control window hands control over with
// every overlay kept, and killing window sockets during 1,000 overlay changes converges every
// window and the bridge within 2 s. Real Chromium, real bridge, gateway and Xvnc.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { BrowserContext, Page } from '@playwright/test';
import sharp from 'sharp';
import { WebSocket } from 'ws';
import { expect, test } from './fixtures.js';
import {
  callTool,
  connectMcp,
  mcpToken,
  openViewerAt,
  startXev,
  viewerRole,
} from './support/controlPlane.js';
import { clearLayout, saveLayout } from './support/layouts.js';
import { signInContext } from './support/signIn.js';
import { screenSize } from './support/xdesktop.js';
import { captureRoot, compareRgba } from '../packages/gateway/src/testing/desktopCapture.js';

interface StoreView {
  seq: number;
  ids: string[];
}

async function store(page: Page): Promise<StoreView> {
  return page.evaluate(() => {
    const api = (
      window as unknown as {
        __overlayCompanion: { overlays(): Array<{ overlay_id: string }>; overlaySeq(): number };
      }
    ).__overlayCompanion;
    return { seq: api.overlaySeq(), ids: api.overlays().map((o) => o.overlay_id) };
  });
}

async function stageBox(page: Page) {
  const box = await page.locator('.remote-display__stage').boundingBox();
  if (!box) throw new Error('no stage');
  return box;
}

/** The page's RGB at CSS pixel (x, y) of its stage (the cropped picture). */
async function stageRgb(page: Page, x: number, y: number): Promise<number[]> {
  const box = await stageBox(page);
  const png = await page.screenshot({ clip: { x: box.x + x, y: box.y + y, width: 1, height: 1 } });
  const { data } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return [...data.subarray(0, 3)];
}

const GREEN = [0, 255, 0];

async function ok(mcp: Client, name: string, args: Record<string, unknown>) {
  const outcome = await callTool(mcp, name, args);
  expect(outcome.isError, `${name}: ${outcome.text}`).toBe(false);
  return outcome;
}

let context: BrowserContext | undefined;
let mcp: Client | undefined;

test.afterEach(async ({ stack }) => {
  await mcp?.close();
  mcp = undefined;
  await context?.close();
  context = undefined;
  await clearLayout(stack);
});

test('two windows, two viewports: an overlay split across them, a click in window 2, each monitor screenshot equal to xwd', async ({
  browser,
  stack,
}) => {
  const desktop = await screenSize(stack.xEnv);
  const half = Math.floor(desktop.width / 2);
  const right = { x: half, y: 0, width: desktop.width - half, height: desktop.height };
  await saveLayout(stack, {
    monitors: [
      { x: 0, y: 0, width: half, height: desktop.height, label: 'left' },
      { ...right, label: 'right' },
    ],
  });
  // Wide enough for the status bar's one-row layout; each window shows its monitor at scale 1.
  context = await browser.newContext({
    viewport: { width: Math.max(1280, right.width + 40), height: desktop.height + 160 },
  });
  await signInContext(context, stack);
  const one = await context.newPage();
  const two = await context.newPage();
  await openViewerAt(one, stack, `?vx=0&vy=0&vw=${half}&vh=${desktop.height}&scale=1&monitor=0`);
  await openViewerAt(
    two,
    stack,
    `?vx=${right.x}&vy=0&vw=${right.width}&vh=${right.height}&scale=1&monitor=1`,
  );
  mcp = await connectMcp(stack);

  // The layout is the AI's map.
  const info = await ok(mcp, 'get_display_info', {});
  expect(info.structured).toEqual({
    desktop: { width: desktop.width, height: desktop.height },
    monitors: [
      { index: 0, x: 0, y: 0, width: half, height: desktop.height, scale: 1, label: 'left' },
      { index: 1, ...right, scale: 1, label: 'right' },
    ],
  });

  // An overlay across the boundary: its left part in window 1, its right part in window 2.
  const drawn = await ok(mcp, 'draw_overlay', {
    x: half - 40,
    y: 100,
    width: 80,
    height: 40,
    color: '#00ff00',
    opacity: 1,
  });
  expect(drawn.structured).toMatchObject({
    bounds: { x: half - 40, y: 100, width: 80, height: 40 },
  });
  await expect.poll(() => stageRgb(one, half - 20, 120)).toEqual(GREEN);
  await expect.poll(() => stageRgb(two, 20, 120)).toEqual(GREEN);
  expect(await stageRgb(two, 60, 120)).not.toEqual(GREEN);
  expect(await stageRgb(one, half - 60, 120)).not.toEqual(GREEN);
  // monitor_index: relative to monitor 1, and reported for the centre.
  const onTwo = await ok(mcp, 'draw_overlay', {
    x: 10,
    y: 10,
    width: 20,
    height: 20,
    monitor_index: 1,
  });
  expect(onTwo.structured).toMatchObject({
    bounds: { x: half + 10, y: 10, width: 20, height: 20 },
    monitor_index: 1,
  });
  await ok(mcp, 'clear_overlays', {});

  // The person clicks in window 2: the desktop gets it at vx + x / scale.
  const xev = await startXev(stack.xEnv);
  try {
    const target = { x: xev.rect.x + 30, y: xev.rect.y + 40 };
    expect(target.x).toBeGreaterThanOrEqual(half);
    const sub = await ok(mcp, 'subscribe_events', { events: ['mouse_click'], debounce_ms: 0 });
    const interest = () =>
      two.evaluate(
        () =>
          (
            window as unknown as {
              __overlayCompanion: { control(): { eventInterest: string[] | null } };
            }
          ).__overlayCompanion.control().eventInterest,
      );
    await expect.poll(interest).toEqual(['mouse_click']);
    const stage = await stageBox(two);
    await two.mouse.click(stage.x + (target.x - half) + 0.5, stage.y + target.y + 0.5);
    await expect.poll(() => xev.log()).toContain(`root:(${target.x},${target.y})`);
    // ...and the AI following the person's clicks is told the same desktop pixel.
    const events = await ok(mcp, 'get_events', {
      subscription_id: sub.structured?.subscription_id,
    });
    expect(events.structured?.events).toMatchObject([
      { type: 'mouse_click', data: { x: target.x, y: target.y, button: 'left' } },
    ]);
    await ok(mcp, 'unsubscribe_events', { subscription_id: sub.structured?.subscription_id });

    // take_screenshot of each monitor is that monitor's pixels, exactly.
    for (const [index, rect] of [
      [0, { x: 0, y: 0, width: half, height: desktop.height }],
      [1, right],
    ] as const) {
      await expect
        .poll(
          async () => {
            const shot = await ok(mcp!, 'take_screenshot', { monitor_index: index });
            expect(shot.structured).toMatchObject({ region: rect, monitor_index: index });
            const image = await sharp(Buffer.from(shot.image ?? '', 'base64'))
              .ensureAlpha()
              .raw()
              .toBuffer({ resolveWithObject: true });
            const root = await captureRoot(stack.xEnv);
            return compareRgba(crop(root, rect), {
              width: image.info.width,
              height: image.info.height,
              rgba: image.data,
            }).mismatches;
          },
          { timeout: 15_000 },
        )
        .toBe(0);
    }
  } finally {
    xev.stop();
  }

  // Resizing a window changes its picture, never the desktop.
  await two.setViewportSize({ width: 500, height: 400 });
  await one.setViewportSize({ width: 900, height: 700 });
  await two.waitForTimeout(800);
  expect(await screenSize(stack.xEnv)).toEqual(desktop);
});

function crop(
  image: { width: number; height: number; rgba: Uint8Array | Buffer },
  rect: { x: number; y: number; width: number; height: number },
): { width: number; height: number; rgba: Buffer } {
  const out = Buffer.alloc(rect.width * rect.height * 4);
  for (let y = 0; y < rect.height; y++) {
    const from = ((rect.y + y) * image.width + rect.x) * 4;
    out.set(image.rgba.subarray(from, from + rect.width * 4), y * rect.width * 4);
  }
  return { width: rect.width, height: rect.height, rgba: out };
}

test('closing the control window hands control to the other window with every overlay kept', async ({
  browser,
  stack,
}) => {
  context = await browser.newContext();
  await signInContext(context, stack);
  const first = await context.newPage();
  await openViewerAt(first, stack, '/');
  await expect.poll(() => viewerRole(first), { timeout: 10_000 }).toBe('control');
  const second = await context.newPage();
  await openViewerAt(second, stack, '/');
  expect(await viewerRole(second)).toBe('mirror');
  mcp = await connectMcp(stack);
  await ok(mcp, 'clear_overlays', {});
  const batch = await ok(mcp, 'batch_overlay', {
    overlays: Array.from({ length: 25 }, (_, i) => ({
      x: 10 + i * 20,
      y: 10,
      width: 15,
      height: 15,
    })),
  });
  const temporary = await ok(mcp, 'draw_overlay', {
    x: 5,
    y: 300,
    width: 50,
    height: 50,
    temporary_ms: 600_000,
  });
  const ids = [
    ...(batch.structured?.overlay_ids as string[]),
    temporary.structured?.overlay_id as string,
  ];
  await expect.poll(async () => (await store(second)).ids).toEqual(ids);

  await first.close();
  await expect.poll(() => viewerRole(second), { timeout: 10_000 }).toBe('control');
  expect((await store(second)).ids).toEqual(ids);
  // The new control window runs the tools, on the same store.
  const more = await ok(mcp, 'draw_overlay', { x: 400, y: 400, width: 30, height: 30 });
  await expect
    .poll(async () => (await store(second)).ids)
    .toEqual([...ids, more.structured?.overlay_id]);
  // And a window opened now gets them all from the bridge.
  const third = await context.newPage();
  await openViewerAt(third, stack, '/');
  await expect
    .poll(async () => (await store(third)).ids)
    .toEqual([...ids, more.structured?.overlay_id]);
  await ok(mcp, 'clear_overlays', {});
});

test('killing and restoring window sockets during 1,000 overlay changes: every window and the bridge agree within 2 s', async ({
  browser,
  stack,
}) => {
  context = await browser.newContext();
  // Every /ws/viewer socket the pages open, so the test can kill one the way a network drop would.
  await context.addInitScript(() => {
    const sockets: Array<{ close(): void }> = [];
    (window as unknown as { __ocSockets: typeof sockets }).__ocSockets = sockets;
    const Original = window.WebSocket;
    window.WebSocket = class extends Original {
      constructor(url: string | URL, protocols?: string | string[]) {
        super(url, protocols);
        if (String(url).includes('/ws/viewer')) sockets.push(this);
      }
    };
  });
  await signInContext(context, stack);
  const control = await context.newPage();
  await openViewerAt(control, stack, '/');
  await expect.poll(() => viewerRole(control), { timeout: 10_000 }).toBe('control');
  const mirror = await context.newPage();
  await openViewerAt(mirror, stack, '/');
  mcp = await connectMcp(stack);
  await ok(mcp, 'clear_overlays', {});

  // A program following the feed the seed way, as the bridge's copy.
  const feed = new WebSocket(new URL('/ws/overlays', stack.url.replace(/^http/, 'ws')), {
    headers: { Authorization: `Bearer ${mcpToken(stack)}` },
  });
  const bridgeIds = new Set<string>();
  feed.on('message', (data: Buffer) => {
    const m = JSON.parse(data.toString()) as {
      type: string;
      overlays?: Array<{ id: string }>;
      overlay?: { id: string };
      overlay_id?: string;
    };
    if (m.type === 'sync_state') {
      bridgeIds.clear();
      for (const o of m.overlays ?? []) bridgeIds.add(o.id);
    } else if (m.type === 'overlay_created' && m.overlay) bridgeIds.add(m.overlay.id);
    else if (m.type === 'overlay_removed' && m.overlay_id) bridgeIds.delete(m.overlay_id);
    else if (m.type === 'clear_overlays') bridgeIds.clear();
  });
  await new Promise((resolve) => feed.once('open', resolve));

  const kill = (page: Page) =>
    page.evaluate(() =>
      (window as unknown as { __ocSockets: WebSocket[] }).__ocSockets.at(-1)?.close(),
    );
  const drawn: string[] = [];
  let failures = 0;
  for (let i = 0; i < 1000; i++) {
    if (i === 200) await kill(mirror);
    if (i === 500) await kill(control);
    if (i === 800) await kill(mirror);
    const removing = i % 4 === 3 && drawn.length > 0;
    const outcome = removing
      ? await callTool(mcp, 'remove_overlay', { overlay_id: drawn.shift() })
      : await callTool(mcp, 'draw_overlay', {
          x: (i * 7) % 1200,
          y: (i * 13) % 700,
          width: 12,
          height: 12,
        });
    // While no window holds control (a killed control socket, until another takes over or it
    // reconnects) calls fail at once and the AI is told; that is allowed. What it was told
    // succeeded must be there in the end.
    if (outcome.isError) failures += 1;
    else if (!removing) drawn.push(outcome.structured?.overlay_id as string);
  }
  expect(failures, 'some calls must have got through').toBeLessThan(1000);
  const started = Date.now();
  await expect
    .poll(
      async () => {
        const [a, b] = await Promise.all([store(control), store(mirror)]);
        const fromBridge = [...bridgeIds].sort();
        return (
          a.seq === b.seq &&
          JSON.stringify(a.ids) === JSON.stringify(b.ids) &&
          JSON.stringify([...a.ids].sort()) === JSON.stringify(fromBridge)
        );
      },
      { timeout: 2_000, intervals: [50] },
    )
    .toBe(true);
  expect(Date.now() - started).toBeLessThan(2_000);
  // Converged on what the AI was told: every overlay it drew and did not remove, or failed.
  const final = await store(control);
  for (const id of drawn) expect(final.ids).toContain(id);
  feed.close();
  await ok(mcp, 'clear_overlays', {});
});
