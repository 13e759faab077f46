// The overlay layer's boxes and label tags on its one canvas: the single definition of that
// painting, run in the painting worker on the layer's OffscreenCanvas (overlayWorker.ts) and on
// the main thread where a browser cannot hand a canvas to a worker (overlayPainter.ts). Each box
// is drawn by overlaysOnCanvas.ts paintShape, as in screenshots, and the tags above all boxes by
// labelCanvas.ts. A paint where a few boxes or tags came or went repaints only the pixels they
// cover (overlayDiff.ts, labelCanvas.ts labelChanges): cleared there and repainted from every box
// and tag touching them, in order, which gives exactly the pixels a full repaint would.
import type { Overlay } from '@overlay-companion/protocol';
import type { Viewport } from '../viewport/viewport.js';
import { devicePixels, overlayChanges, touches, type PixelRect } from './overlayDiff.js';
import { labelChanges, labelPixels, paintLabels, type PaintLabel } from './labelCanvas.js';
import { forEachVisible } from './overlayFrame.js';
import { paintShape, shapeStroke } from './overlaysOnCanvas.js';

/** What painting a box needs of an overlay (the worker gets no more than this). */
export type PaintBox = Pick<Overlay, 'overlay_id' | 'bounds' | 'color' | 'opacity'>;

type Surface = HTMLCanvasElement | OffscreenCanvas;
type Context2D = CanvasRenderingContext2D | OffscreenCanvasRenderingContext2D;

/** What the canvas shows. */
interface Shown {
  boxes: readonly PaintBox[];
  members: ReadonlySet<PaintBox>;
  labels: readonly PaintLabel[];
  view: Viewport;
  ratio: number;
  count: number;
}

const sameView = (a: Viewport, b: Viewport) =>
  a.vx === b.vx && a.vy === b.vy && a.vw === b.vw && a.vh === b.vh && a.scale === b.scale;

export class BoxCanvas {
  readonly #canvas: Surface;
  readonly #context: Context2D | null;
  #shown: Shown | null = null;

  constructor(canvas: Surface, context: Context2D | null) {
    this.#canvas = canvas;
    this.#context = context;
  }

  /**
   * Shows `boxes` (drawing order; arrays never mutated, a changed box a new object) and above
   * them the tags `labels` (layer CSS pixels, drawing order) through `view` at device pixel
   * `ratio` on a canvas of `width`×`height` device pixels; returns how many boxes are in view.
   */
  paint(
    boxes: readonly PaintBox[],
    labels: readonly PaintLabel[],
    view: Viewport,
    ratio: number,
    width: number,
    height: number,
  ): number {
    const canvas = this.#canvas;
    let resized = false;
    // Assigning the size clears the canvas (and its state) even when unchanged: only on change.
    if (canvas.width !== width || canvas.height !== height) {
      canvas.width = width;
      canvas.height = height;
      resized = true;
    }
    const shown = this.#shown;
    const same = shown !== null && !resized && shown.ratio === ratio;
    if (same && shown.boxes === boxes && shown.labels === labels && sameView(shown.view, view))
      return shown.count;
    const members = shown?.boxes === boxes ? shown.members : new Set(boxes);
    const dirty =
      shown === null || !same || !sameView(shown.view, view)
        ? 'all'
        : this.#dirtyPixels(shown, boxes, members, labels);
    const count = this.#paintBoxes(boxes, view, ratio, dirty);
    if (this.#context !== null && (dirty === 'all' || dirty.length > 0))
      this.#paintLabels(this.#context, labels, ratio, dirty);
    this.#shown = { boxes, members, labels, view, ratio, count };
    return count;
  }

  /** The device pixels of the boxes and tags that came or went, or 'all'. */
  #dirtyPixels(
    before: Shown,
    boxes: readonly PaintBox[],
    members: ReadonlySet<PaintBox>,
    labels: readonly PaintLabel[],
  ): PixelRect[] | 'all' {
    const changed = overlayChanges(before.boxes, before.members, boxes, members);
    const tags = labelChanges(before.labels, labels);
    if (changed === 'all' || tags === 'all') return 'all';
    const { width, height } = this.#canvas;
    const pixels: PixelRect[] = [];
    forEachVisible(changed, before.view, (_o, x, y, w, h) => {
      const r = devicePixels(x, y, w, h, before.ratio, width, height);
      if (r !== undefined) pixels.push(r);
    });
    for (const tag of tags) {
      const r = labelPixels(tag, before.ratio, width, height);
      if (r !== undefined) pixels.push(r);
    }
    return pixels;
  }

  /** Paints the tags touching `dirty` (all when 'all'), in the clip #paintBoxes cleared. */
  #paintLabels(
    context: Context2D,
    labels: readonly PaintLabel[],
    ratio: number,
    dirty: PixelRect[] | 'all',
  ): void {
    context.save();
    context.setTransform(1, 0, 0, 1, 0, 0);
    if (dirty !== 'all') {
      context.beginPath();
      for (const r of dirty) context.rect(r.x0, r.y0, r.x1 - r.x0, r.y1 - r.y0);
      context.clip();
    }
    context.setTransform(ratio, 0, 0, ratio, 0, 0);
    paintLabels(context, labels, ratio, dirty);
    context.restore();
  }

  /** Paints the boxes that touch `dirty` (all of them when 'all') after clearing those pixels. */
  #paintBoxes(
    boxes: readonly PaintBox[],
    view: Viewport,
    ratio: number,
    dirty: PixelRect[] | 'all',
  ): number {
    const context = this.#context;
    const { width, height } = this.#canvas;
    const all = dirty === 'all';
    const painting = context !== null && (all || dirty.length > 0);
    if (painting) {
      context.save();
      context.setTransform(1, 0, 0, 1, 0, 0);
      if (!all) {
        context.beginPath();
        for (const r of dirty) context.rect(r.x0, r.y0, r.x1 - r.x0, r.y1 - r.y0);
        context.clip();
      }
      context.clearRect(0, 0, width, height);
      context.setTransform(ratio, 0, 0, ratio, 0, 0);
      shapeStroke(context);
    }
    let color = '';
    const count = forEachVisible(boxes, view, (box, x, y, w, h) => {
      if (!painting) return;
      if (!all) {
        const pixels = devicePixels(x, y, w, h, ratio, width, height);
        if (pixels === undefined || !dirty.some((r) => touches(r, pixels))) return;
      }
      // Setting a style parses the color string: only when it changes.
      if (box.color !== color) {
        color = box.color;
        context.fillStyle = color;
        context.strokeStyle = color;
      }
      // Edges on whole device pixels: crisp boxes, and an outline that covers its pixels
      // exactly instead of blending into the fill.
      const left = Math.round(x * ratio) / ratio;
      const top = Math.round(y * ratio) / ratio;
      const right = Math.max(left + 1 / ratio, Math.round((x + w) * ratio) / ratio);
      const bottom = Math.max(top + 1 / ratio, Math.round((y + h) * ratio) / ratio);
      paintShape(context, left, top, right - left, bottom - top, box.opacity);
    });
    if (painting) context.restore();
    return count;
  }
}
