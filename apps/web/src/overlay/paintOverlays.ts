// Paints overlays into a 2D canvas for take_screenshot's include_overlays: the same look as the
// overlay layer (fill at the overlay's opacity, a solid 2 px outline, the label on a dark tag),
// placed through the capture's region and scale instead of the window's viewport.
import type { Overlay, Rect } from '@overlay-companion/protocol';

export function paintOverlays(
  context: CanvasRenderingContext2D,
  overlays: readonly Overlay[],
  region: Rect,
  scale: number,
): void {
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
      const size = Math.max(10, Math.round(13 * Math.max(scale, 0.75)));
      context.font = `600 ${size}px system-ui, 'DejaVu Sans', sans-serif`;
      const textWidth = context.measureText(overlay.label).width;
      context.fillStyle = 'rgba(15, 17, 20, 0.85)';
      context.fillRect(x, y, textWidth + 8, size + 6);
      context.fillStyle = '#ffffff';
      context.textBaseline = 'top';
      context.fillText(overlay.label, x + 4, y + 3);
    }
    context.restore();
  }
}
