// Privacy masks as geometry, shared by the viewer (which blacks them out of every capture and
// withholds the person's events there) and the bridge (which blacks them out of every image
// again before it leaves): where a mask lands in a capture of a region at a scale — rounded
// outwards, so no partly covered image pixel shows masked content — and whether a desktop point
// is private.
import type { PrivacyMask } from './api/layout.js';

export interface ImageRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The mask rectangles in image pixels of a capture of `region` at `scale` (clipped to it). */
export function masksInImage(
  masks: readonly PrivacyMask[],
  region: ImageRect,
  scale: number,
  image: { width: number; height: number } = {
    width: Math.max(1, Math.round(region.width * scale)),
    height: Math.max(1, Math.round(region.height * scale)),
  },
): ImageRect[] {
  const out: ImageRect[] = [];
  for (const m of masks) {
    const left = Math.max(0, Math.floor((m.x - region.x) * scale));
    const top = Math.max(0, Math.floor((m.y - region.y) * scale));
    const right = Math.min(image.width, Math.ceil((m.x + m.width - region.x) * scale));
    const bottom = Math.min(image.height, Math.ceil((m.y + m.height - region.y) * scale));
    if (right > left && bottom > top)
      out.push({ x: left, y: top, width: right - left, height: bottom - top });
  }
  return out;
}

/** True when the desktop point lies inside a privacy mask. */
export function isMasked(masks: readonly PrivacyMask[], point: { x: number; y: number }): boolean {
  return masks.some(
    (m) => point.x >= m.x && point.y >= m.y && point.x < m.x + m.width && point.y < m.y + m.height,
  );
}
