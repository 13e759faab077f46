// Reading the viewer's overlay layer from a test. The layer paints every box and label tag on
// one canvas (apps/web/src/overlay/overlayPainter.ts), so there is no element per overlay: a
// test asks where an overlay or its tag is painted (the store's overlay through the window's
// viewport, or the tag the layer handed to its painting, once the layer says it painted the
// store's latest change — with the painting worker, once the worker acknowledged it) and checks
// the pixels there. Only the tag the person points at is an element (`[data-overlay-label]`).
/// <reference lib="dom" />
import { expect, type Page } from '@playwright/test';

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

/** A label's tag as the layer painted it on its canvas (labelTags.ts ShownLabel), in page pixels. */
export interface PaintedLabel extends PageRect {
  text: string;
  side: string;
  /** The text is cut with an ellipsis on the tag (whole while the person points at it). */
  cut: boolean;
}

interface LabelApi extends LayerApi {
  overlayPaint(): {
    painted: { seq: number; frame: number };
    labels: {
      frame: number;
      shown: Array<PageRect & { overlay_id: string; text: string; side: string; cut: boolean }>;
    };
  };
}

/**
 * Where the layer painted overlay `id`'s label tag on its canvas (page CSS pixels), once the
 * painting acknowledged the frame that handed it over and shows the store's latest change; null
 * otherwise, and while the person points at it (then it is a DOM tag, whole:
 * `[data-overlay-label]`).
 */
export async function paintedLabel(page: Page, id: string): Promise<PaintedLabel | null> {
  return page.evaluate((overlayId) => {
    const api = (window as unknown as { __overlayCompanion: LabelApi }).__overlayCompanion;
    const layer = document.querySelector<HTMLElement>('[data-testid="overlay-layer"]');
    const { painted, labels } = api.overlayPaint();
    if (layer === null || painted.seq !== api.overlaySeq() || painted.frame < labels.frame)
      return null;
    const tag = labels.shown.find((l) => l.overlay_id === overlayId);
    if (tag === undefined) return null;
    const r = layer.getBoundingClientRect();
    const { text, side, cut } = tag;
    return {
      x: r.left + tag.x,
      y: r.top + tag.y,
      width: tag.width,
      height: tag.height,
      text,
      side,
      cut,
    };
  }, id);
}

/** Overlay `id`'s painted tag, once painted (paintedLabel, polled). */
export async function labelWhenPainted(page: Page, id: string): Promise<PaintedLabel> {
  let tag: PaintedLabel | null = null;
  await expect.poll(async () => (tag = await paintedLabel(page, id))).not.toBeNull();
  return tag as unknown as PaintedLabel;
}

/** Points the mouse at overlay `id`'s painted box (its middle): its label shows whole. */
export async function pointAt(page: Page, id: string): Promise<void> {
  let box: PageRect | null = null;
  await expect.poll(async () => (box = await paintedOverlay(page, id))).not.toBeNull();
  const { x, y, width, height } = box as unknown as PageRect;
  await page.mouse.move(x + width / 2, y + height / 2);
}

/** The texts of the label tags the layer painted, in drawing order, once painted (else null). */
export async function paintedLabelTexts(page: Page): Promise<string[] | null> {
  return page.evaluate(() => {
    const api = (window as unknown as { __overlayCompanion: LabelApi }).__overlayCompanion;
    const { painted, labels } = api.overlayPaint();
    if (painted.seq !== api.overlaySeq() || painted.frame < labels.frame) return null;
    return labels.shown.map((l) => l.text);
  });
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
