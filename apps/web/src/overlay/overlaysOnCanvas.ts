// Draws overlays onto a given 2D canvas — take_screenshot's include_overlays and the recordings
// player — with the same look as the live overlay layer (boxCanvas.ts, which uses this file's
// paintShape too: fill at the overlay's opacity, a solid 2 px outline; the label as the layer's
// painted tag, labelCanvas.ts, with its "AI" badge), placed through a region and scale instead of
// the window's viewport.
import type { Overlay, Rect } from '@overlay-companion/protocol';
import { paintLabels, type PaintLabel } from './labelCanvas.js';
import { placeLabel } from './labelPlacement.js';
import { labelSize } from './labelText.js';

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
  const labels: PaintLabel[] = [];
  context.save();
  shapeStroke(context);
  for (const overlay of overlays) {
    const b = overlay.bounds;
    if (b.width <= 0 || b.height <= 0) continue;
    const box = {
      x: (b.x - region.x) * scale,
      y: (b.y - region.y) * scale,
      width: b.width * scale,
      height: b.height * scale,
    };
    context.fillStyle = overlay.color;
    context.strokeStyle = overlay.color;
    paintShape(context, box.x, box.y, box.width, box.height, overlay.opacity);
    if (overlay.label !== undefined && overlay.label !== '') {
      // The layer's tag, sized and placed as labelTags.ts does it.
      const size = labelSize(overlay.label, scale, area.width);
      const at = placeLabel(box, size, area);
      labels.push({
        overlay_id: overlay.overlay_id,
        text: overlay.label,
        x: at.x,
        y: at.y,
        width: size.width,
        height: size.height,
        fontSize: size.fontSize,
      });
    }
  }
  // Tags above every box, as on the layer (boxCanvas.ts).
  paintLabels(context, labels, 1, 'all');
  context.restore();
}
