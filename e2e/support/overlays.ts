// Reading the viewer's overlay layer from a test. The layer paints every box on one canvas
// (apps/web/src/overlay/overlayPainter.ts), so there is no element per overlay: a test asks
// where an overlay is painted (the store's overlay through the window's viewport, once the layer
// says it painted the store's latest change — with the painting worker, once the worker
// acknowledged it) and checks the pixels there.
/// <reference lib="dom" />
import type { Page } from '@playwright/test';

export interface PageRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

interface LayerApi {
  overlays(): Array<{
    overlay_id: string;
    bounds: { x: number; y: number; width: number; height: number };
  }>;
  overlaySeq(): number;
  viewport(): { vx: number; vy: number; scale: number };
}

/**
 * The page rectangle (CSS pixels) where the layer painted overlay `id`, or null while it is not
 * painted: not in the store, or the layer has not painted the store's latest change yet.
 */
export async function paintedOverlay(page: Page, id: string): Promise<PageRect | null> {
  return page.evaluate((overlayId) => {
    const api = (window as unknown as { __overlayCompanion: LayerApi }).__overlayCompanion;
    const layer = document.querySelector<HTMLElement>('[data-testid="overlay-layer"]');
    if (layer === null || Number(layer.dataset.paintedSeq) !== api.overlaySeq()) return null;
    const overlay = api.overlays().find((o) => o.overlay_id === overlayId);
    if (overlay === undefined) return null;
    const v = api.viewport();
    const r = layer.getBoundingClientRect();
    const b = overlay.bounds;
    return {
      x: r.left + (b.x - v.vx) * v.scale,
      y: r.top + (b.y - v.vy) * v.scale,
      width: b.width * v.scale,
      height: b.height * v.scale,
    };
  }, id);
}

/** How many overlays the layer painted in its last frame, once it shows the latest change. */
export async function paintedCount(page: Page): Promise<number | null> {
  return page.evaluate(() => {
    const api = (window as unknown as { __overlayCompanion: LayerApi }).__overlayCompanion;
    const layer = document.querySelector<HTMLElement>('[data-testid="overlay-layer"]');
    if (layer === null || Number(layer.dataset.paintedSeq) !== api.overlaySeq()) return null;
    return Number(layer.dataset.overlayCount);
  });
}

interface PaintApi {
  overlaySeq(): number;
  overlayPaint(): { path: string | null; posted: { seq: number; frame: number } };
  overlayPainted(frame: number): Promise<{ seq: number; frame: number }>;
}

/**
 * Waits for the page's next animation frame, reads which store change the layer handed to its
 * painting in that frame, then waits for the painting's acknowledgement of that frame — the
 * worker's answer once it painted it (at once when the page paints on its main thread): the
 * store change the layer then shows, the store's own, the store's as the frame's callbacks saw
 * it (atFrame), and how the layer paints.
 */
export async function afterOneFrame(
  page: Page,
): Promise<{ painted: number; seq: number; atFrame: number; path: string | null }> {
  return page.evaluate(
    () =>
      new Promise<{ painted: number; seq: number; atFrame: number; path: string | null }>(
        (resolve) =>
          requestAnimationFrame(() => {
            const api = (window as unknown as { __overlayCompanion: PaintApi }).__overlayCompanion;
            // The store as the frame's callbacks see it (no socket message runs among them).
            const atFrame = api.overlaySeq();
            // A message runs after the frame: after every callback queued for it.
            const channel = new MessageChannel();
            channel.port1.onmessage = () => {
              const seq = api.overlaySeq();
              const { posted, path } = api.overlayPaint();
              if (posted.seq !== seq) {
                resolve({ painted: posted.seq, seq, atFrame, path });
                return;
              }
              void api.overlayPainted(posted.frame).then((mark) => {
                resolve({ painted: mark.seq, seq, atFrame, path });
              });
            };
            channel.port2.postMessage(0);
          }),
      ),
  );
}

/** How the page's overlay layer paints its boxes: 'worker', 'main', or null before it mounted. */
export async function paintPath(page: Page): Promise<string | null> {
  return page.evaluate(
    () =>
      (window as unknown as { __overlayCompanion: PaintApi }).__overlayCompanion.overlayPaint()
        .path,
  );
}

/**
 * For each region of a PNG (a page screenshot; regions in its own pixels), the share of pixels
 * that are exactly `rgb` — decoded by Chromium in a blank page, like support/pixels.ts.
 */
export async function colourShare(
  blank: Page,
  png: Buffer,
  regions: PageRect[],
  rgb: readonly [number, number, number],
): Promise<number[]> {
  return blank.evaluate(
    async ({ base64, regions, rgb }) => {
      const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      const bitmap = await createImageBitmap(new Blob([bytes], { type: 'image/png' }));
      const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
      const ctx = canvas.getContext('2d');
      if (!ctx) throw new Error('no 2d context');
      ctx.drawImage(bitmap, 0, 0);
      return regions.map((r) => {
        const x = Math.max(0, Math.round(r.x));
        const y = Math.max(0, Math.round(r.y));
        const w = Math.min(bitmap.width - x, Math.round(r.width));
        const h = Math.min(bitmap.height - y, Math.round(r.height));
        if (w <= 0 || h <= 0) return Number.NaN;
        const data = ctx.getImageData(x, y, w, h).data;
        let same = 0;
        for (let i = 0; i < data.length; i += 4) {
          if (data[i] === rgb[0] && data[i + 1] === rgb[1] && data[i + 2] === rgb[2]) same++;
        }
        return same / (w * h);
      });
    },
    { base64: png.toString('base64'), regions, rgb },
  );
}
