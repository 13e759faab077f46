// The painting worker in real Chromium (Debian's, headless, software-rendered; through
// playwright-core): the page hands a canvas to the worker built by Vite from overlayWorker.ts
// (testing/workerHarness.ts), the worker's acknowledgement arrives for each frame with the
// state it painted, and what it painted is, pixel for pixel on screen, what the main-thread
// painting gives for the same frames — a full paint, a partial repaint after boxes came and
// went, and a cropped, scaled view — with the colours where the boxes are; and the label tags
// above the boxes, in the AI's badge and frame, repainted only where tags came or went.
import { accessSync, constants } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Overlay } from '@overlay-companion/protocol';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaintLabel } from './labelCanvas.js';

const CHROMIUM = process.env.OC_CHROMIUM?.trim() || '/usr/bin/chromium';
const HARNESS = '/overlay-worker-harness.html';

function chromiumMissing(): string | undefined {
  try {
    accessSync(CHROMIUM, constants.X_OK);
    return undefined;
  } catch {
    return `no Chromium at ${CHROMIUM} (apt-get install chromium, or set OC_CHROMIUM)`;
  }
}

const overlay = (
  id: string,
  x: number,
  y: number,
  width: number,
  height: number,
  color: string,
  opacity = 1,
): Overlay => ({
  overlay_id: id,
  bounds: { x, y, width, height },
  color,
  opacity,
  click_through: true,
  monitor_index: 0,
  created_at: 0,
});

interface Ack {
  frame: number;
  seq: number;
  count: number;
}

type Rgba = [number, number, number, number];

/** Both canvases' pixels as shown on screen (a page screenshot, decoded in the page). */
async function shownPixels(page: Page) {
  const png = await page.screenshot({ clip: { x: 0, y: 0, width: 320, height: 488 } });
  return page.evaluate(async (base64) => {
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    const bitmap = await createImageBitmap(new Blob([bytes], { type: 'image/png' }));
    const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
    const context = canvas.getContext('2d');
    if (!context) throw new Error('no 2d context');
    context.drawImage(bitmap, 0, 0);
    const rows = (top: number) => Array.from(context.getImageData(0, top, 320, 240).data);
    return { worker: rows(0), main: rows(248) };
  }, png.toString('base64'));
}

/**
 * Where two paints differ: how many pixels, and by how much at most (a channel). Text drawn in
 * the worker and on the main thread may differ in a glyph edge's antialiasing, nothing else.
 */
function difference(a: number[], b: number[]) {
  let pixels = 0;
  let most = 0;
  for (let i = 0; i < a.length; i += 4) {
    let d = 0;
    for (let k = 0; k < 4; k++) d = Math.max(d, Math.abs((a[i + k] ?? 0) - (b[i + k] ?? 0)));
    if (d > 0) pixels++;
    most = Math.max(most, d);
  }
  return { pixels, most };
}

/** The worker's paint is the main thread's but for the glyph edges of `tags` tags' text. */
function likeMain(px: { worker: number[]; main: number[] }, tags: number) {
  const d = difference(px.worker, px.main);
  expect(d.pixels, JSON.stringify(d)).toBeLessThanOrEqual(30 * tags);
  expect(d.most, JSON.stringify(d)).toBeLessThanOrEqual(64);
}

const at = (rgba: number[], x: number, y: number): Rgba => {
  const i = (y * 320 + x) * 4;
  return rgba.slice(i, i + 4) as Rgba;
};

describe('the overlay painting worker in Chromium', () => {
  const missing = chromiumMissing();
  let server: ViteDevServer | undefined;
  let browser: Browser | undefined;
  let page: Page;

  beforeAll(async () => {
    if (missing !== undefined) return;
    server = await createServer({
      configFile: false,
      root: fileURLToPath(new URL('../..', import.meta.url)),
      resolve: { conditions: ['overlay-source'] },
      logLevel: 'error',
      server: { host: '127.0.0.1', port: 0, strictPort: false, hmr: false },
      plugins: [
        {
          name: 'overlay-worker-harness',
          configureServer(vite) {
            vite.middlewares.use(HARNESS, (_req, res) => {
              res.setHeader('Content-Type', 'text/html');
              res.end(
                `<!doctype html><html><body style="margin:0;background:#fff">` +
                  `<script type="module" src="/src/overlay/testing/workerHarness.ts"></script>` +
                  `</body></html>`,
              );
            });
          },
        },
      ],
    });
    await server.listen();
    const address = server.httpServer?.address();
    if (address === null || address === undefined || typeof address === 'string')
      throw new Error('the dev server has no port');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    page = await browser.newPage({ viewport: { width: 400, height: 600 }, deviceScaleFactor: 1 });
    await page.goto(`http://127.0.0.1:${address.port}${HARNESS}`);
    await page.waitForFunction(() => 'harness' in window, undefined, { timeout: 60_000 });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /** `labels` left out: the last frame's tags, unchanged (the page sends the worker none). */
  const show = (boxes: Overlay[], view: object, seq: number, labels?: PaintLabel[]) =>
    page.evaluate(
      ([b, v, s, l]) =>
        (
          window as unknown as {
            harness: { show(b: unknown, v: unknown, s: number, l?: unknown): Promise<Ack> };
          }
        ).harness.show(b, v, s, l ?? undefined),
      [boxes, view, seq, labels ?? null] as const,
    );

  it('acknowledges each frame and paints the pixels the main thread paints', async (ctx) => {
    if (missing !== undefined) return ctx.skip(missing);
    expect(
      await page.evaluate(
        () => (window as unknown as { harness: { inWorker: boolean } }).harness.inWorker,
      ),
    ).toBe(true);
    const whole = { vx: 0, vy: 0, vw: 320, vh: 240, scale: 1 };
    const green = overlay('g', 20, 20, 100, 60, '#00ff00');
    const blue = overlay('b', 80, 50, 80, 80, '#0000ff', 0.5);
    const gone = overlay('x', 400, 20, 30, 30, 'red'); // outside the view
    const first = await show([green, blue, gone], whole, 3);
    expect(first).toMatchObject({ frame: 1, seq: 3, count: 2 });
    let px = await shownPixels(page);
    expect(at(px.worker, 40, 40)).toEqual([0, 255, 0, 255]);
    expect(at(px.worker, 200, 200)).toEqual([255, 255, 255, 255]);
    expect(at(px.worker, 140, 100)).not.toEqual([255, 255, 255, 255]); // the blue box
    expect(px.worker).toEqual(px.main);

    // Boxes came and went: the worker repaints only where they are, and still matches.
    const gold = overlay('o', 60, 30, 40, 120, 'gold', 0.8);
    const second = await show([blue, gone, gold], whole, 5);
    expect(second).toMatchObject({ frame: 2, seq: 5, count: 2 });
    px = await shownPixels(page);
    expect(at(px.worker, 30, 30)).toEqual([255, 255, 255, 255]); // where green was
    expect(px.worker).toEqual(px.main);

    // A window showing a part of the desktop, scaled.
    const cropped = { vx: 50, vy: 20, vw: 200, vh: 150, scale: 1.5 };
    const third = await show([blue, gone, gold, green], cropped, 6);
    expect(third).toMatchObject({ frame: 3, seq: 6, count: 3 });
    px = await shownPixels(page);
    // Desktop (30, 50) of the green box is window ((30 - 50 + ...)): take one well inside it.
    expect(at(px.worker, Math.round((100 - 50) * 1.5), Math.round((70 - 20) * 1.5))).toEqual([
      0, 255, 0, 255,
    ]);
    expect(px.worker).toEqual(px.main);
    expect(
      await page.evaluate(
        () => (window as unknown as { harness: { failures: string[] } }).harness.failures,
      ),
    ).toEqual([]);
  });

  it('paints the label tags above the boxes, in the AI badge and frame, as the main thread does', async (ctx) => {
    if (missing !== undefined) return ctx.skip(missing);
    const whole = { vx: 0, vy: 0, vw: 320, vh: 240, scale: 1 };
    const tag = (id: string, x: number, y: number, width: number, text: string): PaintLabel => ({
      overlay_id: id,
      text,
      x,
      y,
      width,
      height: 24,
      fontSize: 13,
    });
    const white = [255, 255, 255, 255];
    const badge = [124, 58, 237, 255]; // --ai-mark
    const edge = [179, 107, 255, 255]; // --ai-mark-edge
    const green = overlay('g', 20, 100, 200, 60, '#00ff00');
    const save = tag('s', 20, 40, 150, 'Save the invoice');
    await show([green], whole, 10, [save]);
    let px = await shownPixels(page);
    expect(at(px.worker, save.x + 8, save.y + 12)).toEqual(badge); // the badge's left padding
    expect(at(px.worker, save.x + 75, save.y)).toEqual(edge); // the frame's top edge
    const inside = at(px.worker, save.x + 140, save.y + 12); // the dark tag, past the text
    expect(Math.max(...inside.slice(0, 3))).toBeLessThan(60);
    likeMain(px, 1);

    // A long label cut to its tag, over the box: only its pixels repaint, the box under it too.
    const long = tag('l', 60, 110, 120, 'Click this tiny checkbox to accept the terms');
    await show([green], whole, 11, [save, long]);
    px = await shownPixels(page);
    expect(at(px.worker, long.x + 8, long.y + 12)).toEqual(badge);
    expect(at(px.worker, 40, 150)).toEqual([0, 255, 0, 255]); // the box beside the tag
    likeMain(px, 2);

    // The box under a tag goes; the tags stay as they were (no tags sent to the worker).
    await show([], whole, 12);
    px = await shownPixels(page);
    expect(at(px.worker, 40, 150)).toEqual(white);
    expect(at(px.worker, long.x + 8, long.y + 12)).toEqual(badge);
    likeMain(px, 2);

    // A tag goes: its pixels are clear again.
    await show([], whole, 13, [long]);
    px = await shownPixels(page);
    expect(at(px.worker, save.x + 8, save.y + 12)).toEqual(white);
    expect(at(px.worker, save.x + 75, save.y)).toEqual(white);
    likeMain(px, 1);
  });
});
