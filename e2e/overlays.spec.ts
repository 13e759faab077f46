// The overlay layer end to end (issue 9, item 3), in real Chromium against the real bridge and
// Xvnc desktop with a real MCP client: overlays drawn, batched, removed, expired and cleared
// through MCP show in every window of the person — the control window, a second window of a
// different size and a third cropped to a part of the desktop (a box across its edge shows from
// the edge on) — at the exact pixels (also where a removed box uncovers others), handed to the
// painting in the frame after the window had the change and acknowledged as painted for that
// frame — both by the painting worker (OffscreenCanvas) and, in a browser without
// transferControlToOffscreen, on the main thread; a window whose worker cannot start paints on
// its main thread;
// click-through overlays let the person's click reach the X client underneath (xev says where
// it landed), an interactive one (click_through: false) catches it — get_events reports a
// mouse_click with its overlay_id and X receives nothing; labels with markup are text.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { BrowserContext, Page } from '@playwright/test';
import { expect, test } from './fixtures.js';
import type { RunningStack } from './support/bridgeProcess.js';
import {
  callTool,
  connectMcp,
  openControlViewer,
  pageOf,
  startXev,
  viewerRole,
} from './support/controlPlane.js';
import {
  afterOneFrame,
  colourShare,
  paintPath,
  paintedCount,
  paintedLabel,
  paintedOverlay,
  pointAt,
  type PageRect,
} from './support/overlays.js';
import { screenSize } from './support/xdesktop.js';

type Rgb = readonly [number, number, number];
interface DesktopRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

let mcp: Client;

/** Tests whose title ends so run in windows that cannot hand a canvas to a worker. */
const ON_MAIN_THREAD = '(main-thread painting)';

test.beforeEach(async ({ page, context, stack }, testInfo) => {
  if (testInfo.title.endsWith(ON_MAIN_THREAD)) {
    // A browser without OffscreenCanvas transfer: the layer must find out and paint itself.
    await context.addInitScript(() => {
      delete (HTMLCanvasElement.prototype as Partial<HTMLCanvasElement>).transferControlToOffscreen;
    });
  }
  await openControlViewer(page, stack, 'assist');
  mcp = await connectMcp(stack);
});

test.afterEach(async () => {
  await callTool(mcp, 'clear_overlays', {});
  await mcp.close();
});

async function ok(name: string, args: Record<string, unknown>) {
  const outcome = await callTool(mcp, name, args);
  expect(outcome.isError, `${name}: ${outcome.text}`).toBe(false);
  return outcome;
}

/** A second window of the same signed-in person, of another size (so another scale). */
async function openSecondWindow(context: BrowserContext, stack: RunningStack): Promise<Page> {
  const second = await context.newPage();
  await second.setViewportSize({ width: 1000, height: 700 });
  await second.goto(stack.url);
  await expect(second.getByTestId('desktop-size')).toBeVisible({ timeout: 30_000 });
  await expect.poll(() => viewerRole(second), { timeout: 15_000 }).toBe('mirror');
  return second;
}

/**
 * The desktop rectangle in page pixels, from where the remote display element is (not from the
 * overlay layer's own arithmetic).
 */
async function pageRect(page: Page, desktopWidth: number, r: DesktopRect): Promise<PageRect> {
  const topLeft = await pageOf(page, desktopWidth, r.x, r.y);
  return {
    x: topLeft.x - 0.5 * topLeft.scale,
    y: topLeft.y - 0.5 * topLeft.scale,
    width: r.width * topLeft.scale,
    height: r.height * topLeft.scale,
  };
}

/** `r` shrunk by `by` CSS pixels on every side (off the anti-aliased edge). */
function inset(r: PageRect, by: number): PageRect {
  return { x: r.x + by, y: r.y + by, width: r.width - 2 * by, height: r.height - 2 * by };
}

/** Four 2 px strips just outside `r` (2 px away from its edge). */
function ringOutside(r: PageRect): PageRect[] {
  const gap = 2;
  const t = 2;
  return [
    { x: r.x, y: r.y - gap - t, width: r.width, height: t },
    { x: r.x, y: r.y + r.height + gap, width: r.width, height: t },
    { x: r.x - gap - t, y: r.y, width: t, height: r.height },
    { x: r.x + r.width + gap, y: r.y, width: t, height: r.height },
  ];
}

/**
 * Each page shows `rect` filled with `rgb` (every pixel inside, off the edge, exactly that
 * colour) and nothing of it just outside — or, with `shown` false, none of it inside.
 */
async function expectPainted(
  pages: Page[],
  pixelPage: Page,
  desktopWidth: number,
  rect: DesktopRect,
  rgb: Rgb,
  shown = true,
): Promise<void> {
  for (const page of pages) {
    const box = await pageRect(page, desktopWidth, rect);
    const png = await page.screenshot();
    const [inside = Number.NaN, ...outside] = await colourShare(
      pixelPage,
      png,
      [inset(box, 1.5), ...ringOutside(box)],
      rgb,
    );
    if (shown) {
      expect(inside, `inside ${JSON.stringify(rect)} on ${page.url()}`).toBe(1);
      expect(outside, `around ${JSON.stringify(rect)}`).toEqual([0, 0, 0, 0]);
    } else {
      expect(inside, `inside ${JSON.stringify(rect)} after it went`).toBe(0);
    }
  }
}

function overlaySeq(page: Page): Promise<number> {
  return page.evaluate(() =>
    (
      window as unknown as { __overlayCompanion: { overlaySeq(): number } }
    ).__overlayCompanion.overlaySeq(),
  );
}

/**
 * The frame rule for a window that has a store change: the next animation frame of its layer
 * hands that change to its painting, and the painting acknowledges that very frame as painted.
 * The change may have reached the window after the sampled frame's callbacks ran (its socket
 * message runs between the frame and the sample: the callbacks saw the store without it); then
 * the frame after is the one that must have painted it. A layer a frame late still fails: its
 * frame's callbacks saw the change and did not hand it over.
 */
async function expectNextFramePainted(page: Page, path: PaintPath, who: string): Promise<number> {
  let sample = await afterOneFrame(page);
  if (sample.painted !== sample.seq && sample.atFrame !== sample.seq)
    sample = await afterOneFrame(page);
  expect(sample.path, `how ${who} paints`).toBe(path);
  expect(sample.painted, `${who} painted the change in the frame after it had it`).toBe(sample.seq);
  return sample.seq;
}

/**
 * Runs `act` (a tool call that changes the overlays) and checks the frame rule in every window.
 * The control window may get the change only after the tool returned — the bridge answers a
 * draw_overlay itself and hands the overlay to the window over its socket — so each window, the
 * control window first, is checked once its store has the change.
 */
async function changeSeen<T>(
  control: Page,
  others: Page[],
  path: PaintPath,
  act: () => Promise<T>,
): Promise<T> {
  const before = await overlaySeq(control);
  const result = await act();
  await expect
    .poll(() => overlaySeq(control), {
      timeout: 5_000,
      message: 'the control window received the change',
    })
    .toBeGreaterThan(before);
  const seq = await expectNextFramePainted(control, path, 'the control window');
  for (const page of others) {
    await expect
      .poll(() => overlaySeq(page), { timeout: 5_000, message: 'another window received it' })
      .toBe(seq);
    await expectNextFramePainted(page, path, 'another window');
  }
  return result;
}

type PaintPath = 'worker' | 'main';

const GREEN: Rgb = [0, 255, 0];
const BLUE: Rgb = [0, 0, 255];
const ORANGE: Rgb = [255, 165, 0];

for (const [path, suffix] of [
  ['worker', '(painting worker)'],
  ['main', ON_MAIN_THREAD],
] as const) {
  test(`drawn, batched, removed, expired and cleared overlays show in every window at the exact pixels, painted the frame after each window had the change ${suffix}`, async ({
    page,
    stack,
    context,
    pixelPage,
  }) => {
    const desktop = await screenSize(stack.xEnv);
    const second = await openSecondWindow(context, stack);
    const pages = [page, second];
    // A third window showing only desktop (300, 250)–(700, 550) at 1.25×.
    const cropped = await context.newPage();
    await cropped.goto(`${stack.url}?vx=300&vy=250&vw=400&vh=300&scale=1.25`);
    await expect(cropped.getByTestId('desktop-size')).toBeVisible({ timeout: 30_000 });
    await expect.poll(() => viewerRole(cropped), { timeout: 15_000 }).toBe('mirror');
    try {
      // One box.
      const box = { x: 180, y: 140, width: 130, height: 90 };
      const drawn = await changeSeen(page, [second], path, () =>
        ok('draw_overlay', { ...box, color: '#00ff00', opacity: 1 }),
      );
      await expectPainted(pages, pixelPage, desktop.width, box, GREEN);
      const boxId = String(drawn.structured?.overlay_id);

      // A batch of 600 small boxes in a grid, in one call.
      const cells: DesktopRect[] = [];
      for (let row = 0; row < 20; row++) {
        for (let col = 0; col < 30; col++) {
          cells.push({ x: 400 + col * 16, y: 300 + row * 16, width: 10, height: 10 });
        }
      }
      const batch = await changeSeen(page, [second], path, () =>
        ok('batch_overlay', {
          overlays: cells.map((c) => ({ ...c, color: '#0000ff', opacity: 1 })),
        }),
      );
      expect(batch.structured?.overlay_ids).toHaveLength(600);
      for (const p of pages) expect(await paintedCount(p)).toBe(601);
      for (const i of [0, 29, 300, 599]) {
        await expectPainted(pages, pixelPage, desktop.width, cells[i] as DesktopRect, BLUE);
      }

      // An opaque box over part of the grid, then removed: the cells under it are repainted
      // exactly (the layer repaints only where it was), and the gaps between them stay clear.
      const cover = { x: 390, y: 290, width: 130, height: 90 };
      const covering = await changeSeen(page, [second], path, () =>
        ok('draw_overlay', { ...cover, color: '#00ff00', opacity: 1 }),
      );
      await expectPainted(pages, pixelPage, desktop.width, cover, GREEN);
      await changeSeen(page, [second], path, () =>
        ok('remove_overlay', { overlay_id: String(covering.structured?.overlay_id) }),
      );
      await expectPainted(pages, pixelPage, desktop.width, cover, GREEN, false);
      for (const i of [0, 7, 32, 157]) {
        await expectPainted(pages, pixelPage, desktop.width, cells[i] as DesktopRect, BLUE);
      }
      const gap = { x: 410, y: 300, width: 6, height: 70 }; // between the first two columns
      await expectPainted(pages, pixelPage, desktop.width, gap, BLUE, false);
      // The cropped window paints the same where its part of the desktop shows them.
      for (const i of [0, 7, 32, 157]) {
        await expectPainted([cropped], pixelPage, desktop.width, cells[i] as DesktopRect, BLUE);
      }
      await expectPainted([cropped], pixelPage, desktop.width, gap, BLUE, false);
      expect(await paintedCount(cropped)).toBe(19 * 16); // the cells in its part, not the first box
      // A box across its left edge shows from the edge on, and nothing of it beyond.
      const across = await changeSeen(page, [second, cropped], path, () =>
        ok('draw_overlay', {
          x: 250,
          y: 262,
          width: 100,
          height: 30,
          color: 'orange',
          opacity: 1,
        }),
      );
      const visiblePart = { x: 300, y: 262, width: 50, height: 30 };
      await expectPainted([cropped], pixelPage, desktop.width, visiblePart, ORANGE);
      await ok('remove_overlay', { overlay_id: String(across.structured?.overlay_id) });

      // Removed: its pixels go, the batch stays.
      await changeSeen(page, [second], path, () => ok('remove_overlay', { overlay_id: boxId }));
      await expectPainted(pages, pixelPage, desktop.width, box, GREEN, false);
      for (const p of pages) expect(await paintedOverlay(p, boxId)).toBeNull();

      // Temporary: shown, then gone by itself in every window.
      const brief = { x: 180, y: 500, width: 120, height: 60 };
      const temporary = await changeSeen(page, [second], path, () =>
        ok('draw_overlay', {
          ...brief,
          color: 'orange',
          opacity: 1,
          temporary_ms: 1_500,
        }),
      );
      await expectPainted(pages, pixelPage, desktop.width, brief, ORANGE);
      const briefId = String(temporary.structured?.overlay_id);
      for (const p of pages) {
        await expect.poll(() => paintedOverlay(p, briefId), { timeout: 5_000 }).toBeNull();
      }
      await expectPainted(pages, pixelPage, desktop.width, brief, ORANGE, false);

      // Cleared.
      const cleared = await changeSeen(page, [second], path, () => ok('clear_overlays', {}));
      expect(cleared.structured).toEqual({ cleared: 600 });
      for (const p of pages) expect(await paintedCount(p)).toBe(0);
      await expectPainted(pages, pixelPage, desktop.width, cells[0] as DesktopRect, BLUE, false);
    } finally {
      await cropped.close();
      await second.close();
    }
  });
}

test('a window whose painting worker cannot start paints its overlays on its main thread', async ({
  context,
  stack,
  pixelPage,
}) => {
  const desktop = await screenSize(stack.xEnv);
  const blocked = await context.newPage();
  try {
    // The worker's script does not load (as behind a proxy or a policy that refuses it).
    await blocked.route(/\/overlayWorker[^/]*\.js/, (route) => route.abort());
    await blocked.goto(stack.url);
    await expect(blocked.getByTestId('desktop-size')).toBeVisible({ timeout: 30_000 });
    await expect.poll(() => viewerRole(blocked), { timeout: 15_000 }).toBe('mirror');
    const box = { x: 220, y: 160, width: 120, height: 80 };
    await ok('draw_overlay', { ...box, color: '#00ff00', opacity: 1 });
    await expect.poll(() => paintPath(blocked)).toBe('main');
    await expect.poll(() => paintedCount(blocked)).toBe(1);
    await expectPainted([blocked], pixelPage, desktop.width, box, GREEN);
  } finally {
    await blocked.close();
  }
});

const pressesIn = (log: string) =>
  [...log.matchAll(/ButtonPress[\s\S]*?root:\((\d+),(\d+)\)/g)].map((m) => ({
    x: Number(m[1]),
    y: Number(m[2]),
  }));
const releasesIn = (log: string) => (log.match(/ButtonRelease/g) ?? []).length;

test("a click-through overlay lets the person's click reach the app underneath; an interactive one catches it, reports it with its id, and X gets nothing — also in a cropped window", async ({
  page,
  stack,
  context,
}) => {
  const desktop = await screenSize(stack.xEnv);
  const xev = await startXev(stack.xEnv);
  try {
    const r = xev.rect;
    const area = { x: r.x + 20, y: r.y + 20, width: 120, height: 90 };
    const target = { x: r.x + 70, y: r.y + 60 }; // inside `area`
    const elsewhere = { x: r.x + 200, y: r.y + 130 }; // in xev, outside `area`
    const sub = await ok('subscribe_events', { events: ['mouse_click'], debounce_ms: 0 });
    const subscription = String(sub.structured?.subscription_id);
    const events: Array<{ type: string; data: Record<string, unknown> }> = [];
    const readEvents = async () => {
      const got = await ok('get_events', { subscription_id: subscription });
      events.push(...((got.structured?.events as typeof events | undefined) ?? []));
      return events;
    };
    const click = async (p: { x: number; y: number }) => {
      const at = await pageOf(page, desktop.width, p.x, p.y);
      await page.mouse.click(at.x, at.y);
    };

    // Click-through (the default): the click lands in xev, at the pixel under the overlay.
    await ok('draw_overlay', { ...area, color: '#00ff00', opacity: 0.5 });
    await expect.poll(() => paintedCount(page)).toBe(1);
    await click(target);
    await expect.poll(() => pressesIn(xev.log()).length, { timeout: 10_000 }).toBe(1);
    const [landed] = pressesIn(xev.log());
    expect(Math.abs((landed?.x ?? -99) - target.x)).toBeLessThanOrEqual(1);
    expect(Math.abs((landed?.y ?? -99) - target.y)).toBeLessThanOrEqual(1);
    await expect.poll(() => releasesIn(xev.log())).toBe(1);
    await expect.poll(async () => (await readEvents()).length).toBe(1);
    expect(events[0]?.data.overlay_id).toBeUndefined();

    // Interactive, on top of it: the pointer turns into a hand over it, and its click is caught.
    const catcher = await ok('draw_overlay', {
      ...area,
      color: '#ff00ff',
      opacity: 0.5,
      click_through: false,
    });
    const catcherId = String(catcher.structured?.overlay_id);
    await expect.poll(() => paintedCount(page)).toBe(2);
    const over = await pageOf(page, desktop.width, target.x, target.y);
    await page.mouse.move(over.x, over.y);
    await expect(page.locator('.remote-display')).toHaveClass(/remote-display--catches/);
    await click(target);
    // Then a click beside it, which X does get: once it is there, the caught one (earlier)
    // would have been too.
    await click(elsewhere);
    await expect.poll(() => pressesIn(xev.log()).length, { timeout: 10_000 }).toBe(2);
    const second = pressesIn(xev.log())[1];
    expect(Math.abs((second?.x ?? -99) - elsewhere.x)).toBeLessThanOrEqual(1);
    expect(Math.abs((second?.y ?? -99) - elsewhere.y)).toBeLessThanOrEqual(1);
    await expect.poll(() => releasesIn(xev.log())).toBe(2);
    await expect.poll(async () => (await readEvents()).length, { timeout: 10_000 }).toBe(3);
    const caught = events[1];
    expect(caught?.type).toBe('mouse_click');
    expect(caught?.data).toMatchObject({ button: 'left', overlay_id: catcherId });
    expect(Math.abs(Number(caught?.data.x) - target.x)).toBeLessThanOrEqual(1);
    expect(Math.abs(Number(caught?.data.y) - target.y)).toBeLessThanOrEqual(1);
    expect(events[2]?.data.overlay_id).toBeUndefined();
    // Nothing more reached X.
    expect(pressesIn(xev.log())).toHaveLength(2);

    // The same in a second window showing only a part of the desktop (vx, vy, vw, vh, scale):
    // its click on the overlay is caught and reported; beside it, X gets it.
    const cropped = await context.newPage();
    try {
      const crop = { vx: r.x - 110, vy: r.y - 60, vw: 380, vh: 260 };
      await cropped.goto(
        `${stack.url}?vx=${crop.vx}&vy=${crop.vy}&vw=${crop.vw}&vh=${crop.vh}&scale=1.5`,
      );
      await expect(cropped.getByTestId('desktop-size')).toBeVisible({ timeout: 30_000 });
      await expect.poll(() => viewerRole(cropped), { timeout: 15_000 }).toBe('mirror');
      await expect.poll(() => paintedCount(cropped)).toBe(2);
      for (const p of [target, elsewhere]) {
        const at = await pageOf(cropped, desktop.width, p.x, p.y);
        await cropped.mouse.click(at.x, at.y);
      }
      await expect.poll(() => pressesIn(xev.log()).length, { timeout: 10_000 }).toBe(3);
      const third = pressesIn(xev.log())[2];
      expect(Math.abs((third?.x ?? -99) - elsewhere.x)).toBeLessThanOrEqual(1);
      expect(Math.abs((third?.y ?? -99) - elsewhere.y)).toBeLessThanOrEqual(1);
      const caughtThere = async () =>
        (await readEvents()).slice(3).find((e) => e.data.overlay_id !== undefined);
      await expect.poll(caughtThere, { timeout: 10_000 }).toBeDefined();
      const there = await caughtThere();
      expect(there?.data).toMatchObject({ button: 'left', overlay_id: catcherId });
      expect(Math.abs(Number(there?.data.x) - target.x)).toBeLessThanOrEqual(1);
      expect(Math.abs(Number(there?.data.y) - target.y)).toBeLessThanOrEqual(1);
      expect(pressesIn(xev.log())).toHaveLength(3);
    } finally {
      await cropped.close();
    }
    await ok('unsubscribe_events', { subscription_id: subscription });
  } finally {
    xev.stop();
  }
});

test('labels with HTML and script are shown as text in every window: no element made, no script run', async ({
  page,
  stack,
  context,
}) => {
  const label = `<img src=x onerror="window.__ocPwned=1"><script>window.__ocPwned=2</script><b>bold</b> & "quoted"`;
  const drawn = await ok('draw_overlay', {
    x: 200,
    y: 200,
    width: 240,
    height: 60,
    color: 'purple',
    label,
  });
  const id = String(drawn.structured?.overlay_id);
  const second = await openSecondWindow(context, stack);
  try {
    for (const p of [page, second]) {
      // Painted on the canvas as its text; pointed at, shown whole as a page tag's text.
      await expect.poll(async () => (await paintedLabel(p, id))?.text).toBe(label);
      await pointAt(p, id);
      const tag = p.locator(`[data-overlay-label="${id}"]`);
      await expect(tag).toHaveCount(1);
      expect(await tag.evaluate((el) => el.textContent)).toBe(label);
      expect(await tag.evaluate((el) => el.childElementCount)).toBe(0);
      expect(
        await p.evaluate(
          () =>
            document.querySelectorAll('.overlay-layer img, .overlay-layer script, .overlay-layer b')
              .length,
        ),
      ).toBe(0);
      expect(
        await p.evaluate(() => (window as unknown as { __ocPwned?: number }).__ocPwned),
      ).toBeUndefined();
    }
  } finally {
    await second.close();
  }
});
