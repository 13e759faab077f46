// Draws overlays onto a given 2D canvas — take_screenshot's include_overlays and the recordings
// player — with the same look as the live overlay layer (overlayPainter.ts, which uses this
// file's paintShape too: fill at the overlay's opacity, a solid 2 px outline; the label on a dark
// tag), placed through a region and scale instead of the window's viewport.
import type { Overlay, Rect } from '@overlay-companion/protocol';
import { labelFontSize, placeLabel } from './labelPlacement.js';
import { LABEL_PADDING_X, fitLabelText, labelFont, labelMaxWidth } from './labelText.js';

/** Outline width in the canvas's own pixels (CSS pixels on the layer). */
const OUTLINE_PX = 2;

type Context2D = CanvasRenderingContext2D | OffscreenCanvasRenderingContext2D;

/**
 * One overlay's box: the fill at `opacity`, then a solid outline inside the box's edge. Leaves
 * globalAlpha at 1; sets fillStyle/strokeStyle (callers painting thousands skip repeats).
 */
export function paintShape(
  context: Context2D,
  x: number,
  y: number,
  width: number,
  height: number,
  opacity: number,
): void {
  context.globalAlpha = opacity;
  context.fillRect(x, y, width, height);
  context.globalAlpha = 1;
  const half = OUTLINE_PX / 2;
  context.strokeRect(
    x + half,
    y + half,
    Math.max(0, width - OUTLINE_PX),
    Math.max(0, height - OUTLINE_PX),
  );
}

/** Sets up `context` for paintShape's outlines. */
export function shapeStroke(context: Context2D): void {
  context.lineWidth = OUTLINE_PX;
}

export function drawOverlaysOnCanvas(
  context: CanvasRenderingContext2D,
  overlays: readonly Overlay[],
  region: Rect,
  scale: number,
): void {
  const area = { width: region.width * scale, height: region.height * scale };
  const maxTextWidth = labelMaxWidth(area.width) - 2 * LABEL_PADDING_X;
  for (const overlay of overlays) {
    const b = overlay.bounds;
    if (b.width <= 0 || b.height <= 0) continue;
    const x = (b.x - region.x) * scale;
    const y = (b.y - region.y) * scale;
    const w = b.width * scale;
    const h = b.height * scale;
    context.save();
    context.fillStyle = overlay.color;
    context.strokeStyle = overlay.color;
    shapeStroke(context);
    paintShape(context, x, y, w, h, overlay.opacity);
    if (overlay.label !== undefined && overlay.label !== '') {
      // The same tag and placement as the overlay layer (labelPlacement.ts).
      const size = labelFontSize(scale);
      context.font = labelFont(size);
      const text = fitLabelText(
        overlay.label,
        maxTextWidth,
        (candidate) => context.measureText(candidate).width,
      );
      const textWidth = Math.min(context.measureText(text).width, maxTextWidth);
      const tag = { width: textWidth + 2 * LABEL_PADDING_X, height: Math.ceil(size * 1.35) + 4 };
      const at = placeLabel({ x, y, width: w, height: h }, tag, area);
      context.fillStyle = 'rgba(15, 17, 20, 0.88)';
      context.fillRect(at.x, at.y, tag.width, tag.height);
      context.fillStyle = '#ffffff';
      context.textBaseline = 'top';
      context.fillText(text, at.x + LABEL_PADDING_X, at.y + 2, textWidth);
    }
    context.restore();
  }
}
