// Privacy masks in the viewer's pixels: black rectangles over a capture (take_screenshot and
// every periodic capture), and the test "is this desktop point private" that withholds the
// person's events there. Masks are in desktop pixels; a capture maps them through its region
// and scale, rounding outwards so no partly covered image pixel shows masked content.
import type { PrivacyMask, Rect } from '@overlay-companion/protocol';

/** The mask rectangles in image pixels of a capture of `region` at `scale` (clipped to it). */
export function masksInImage(
  masks: readonly PrivacyMask[],
  region: Rect,
  scale: number,
): { x: number; y: number; width: number; height: number }[] {
  const out: { x: number; y: number; width: number; height: number }[] = [];
  const width = Math.max(1, Math.round(region.width * scale));
  const height = Math.max(1, Math.round(region.height * scale));
  for (const m of masks) {
    const left = Math.max(0, Math.floor((m.x - region.x) * scale));
    const top = Math.max(0, Math.floor((m.y - region.y) * scale));
    const right = Math.min(width, Math.ceil((m.x + m.width - region.x) * scale));
    const bottom = Math.min(height, Math.ceil((m.y + m.height - region.y) * scale));
    if (right > left && bottom > top)
      out.push({ x: left, y: top, width: right - left, height: bottom - top });
  }
  return out;
}

export function paintMasks(
  context: CanvasRenderingContext2D,
  masks: readonly PrivacyMask[],
  region: Rect,
  scale: number,
): void {
  if (masks.length === 0) return;
  context.save();
  context.globalAlpha = 1;
  context.globalCompositeOperation = 'source-over';
  context.fillStyle = '#000000';
  for (const r of masksInImage(masks, region, scale)) context.fillRect(r.x, r.y, r.width, r.height);
  context.restore();
}

/** True when the desktop point lies inside a privacy mask (events there are withheld). */
export function isMasked(masks: readonly PrivacyMask[], point: { x: number; y: number }): boolean {
  return masks.some(
    (m) => point.x >= m.x && point.y >= m.y && point.x < m.x + m.width && point.y < m.y + m.height,
  );
}
