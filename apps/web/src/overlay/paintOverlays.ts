// Paints overlays into a 2D canvas for take_screenshot's include_overlays: the same look as the
// overlay layer (fill at the overlay's opacity, a solid 2 px outline, the label on a dark tag),
// placed through the capture's region and scale instead of the window's viewport.
import type { Overlay, Rect } from '@overlay-companion/protocol';
import { labelFontSize, placeLabel } from './labelPlacement.js';
import { LABEL_MAX_WIDTH, labelFont } from './labelText.js';

export function paintOverlays(
  context: CanvasRenderingContext2D,
  overlays: readonly Overlay[],
  region: Rect,
  scale: number,
): void {
  const area = { width: region.width * scale, height: region.height * scale };
  for (const overlay of overlays) {
    const b = overlay.bounds;
    if (b.width <= 0 || b.height <= 0) continue;
    const x = (b.x - region.x) * scale;
    const y = (b.y - region.y) * scale;
    const w = b.width * scale;
    const h = b.height * scale;
    context.save();
    context.globalAlpha = overlay.opacity;
    context.fillStyle = overlay.color;
    context.fillRect(x, y, w, h);
    context.globalAlpha = 1;
    context.strokeStyle = overlay.color;
    context.lineWidth = 2;
    context.strokeRect(x + 1, y + 1, Math.max(0, w - 2), Math.max(0, h - 2));
    if (overlay.label !== undefined && overlay.label !== '') {
      // The same tag and placement as the overlay layer (labelPlacement.ts).
      const size = labelFontSize(scale);
      context.font = labelFont(size);
      const textWidth = Math.min(context.measureText(overlay.label).width, LABEL_MAX_WIDTH - 12);
      const tag = { width: textWidth + 12, height: Math.ceil(size * 1.35) + 4 };
      const at = placeLabel({ x, y, width: w, height: h }, tag, area);
      context.fillStyle = 'rgba(15, 17, 20, 0.88)';
      context.fillRect(at.x, at.y, tag.width, tag.height);
      context.fillStyle = '#ffffff';
      context.textBaseline = 'top';
      context.fillText(overlay.label, at.x + 6, at.y + 2, textWidth);
    }
    context.restore();
  }
}
