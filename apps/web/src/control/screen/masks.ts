// Privacy masks in the viewer's pixels: black rectangles over a capture (take_screenshot and
// every periodic capture) and over the sampled pixels every change detection hashes. The
// geometry (masksInImage, isMasked) is the protocol's, shared with the bridge.
import { masksInImage, type PrivacyMask, type Rect } from '@overlay-companion/protocol';

export { isMasked, masksInImage } from '@overlay-companion/protocol';

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

/** Sets every pixel of `data` (RGBA, `width` × `height`) inside a mask to opaque black. */
export function blackOut(
  data: Uint8ClampedArray,
  width: number,
  height: number,
  masks: readonly PrivacyMask[],
): void {
  for (const m of masks) {
    const left = Math.max(0, m.x);
    const right = Math.min(width, m.x + m.width);
    const top = Math.max(0, m.y);
    const bottom = Math.min(height, m.y + m.height);
    if (right <= left || bottom <= top) continue;
    for (let y = top; y < bottom; y++) {
      const row = (y * width) << 2;
      data.fill(0, row + (left << 2), row + (right << 2));
      for (let x = left; x < right; x++) data[row + (x << 2) + 3] = 255;
    }
  }
}
