// Scales RGBA pixels down to a smaller size by averaging the block of the source each target pixel
// covers (a box filter), into tight RGB: a thumbnail of the screen (guacUser.ts's `thumbnail`
// attention). Every source pixel is read once, so a 1280×800 screen takes a few milliseconds —
// less than sharp's resize, which also needs the framebuffer's meaningless alpha dealt with first.
// The alpha channel is ignored. Target pixel t of a dimension covers source pixels
// [blockStart(t), blockStart(t + 1)), so part of a thumbnail can be scaled from just the source
// block under it (thumbnailRegion) and comes out the same as in the whole one.
import type { Rect } from './rect.js';

/** The first source pixel of target pixel `t` when `size` pixels become `toSize`. */
export function blockStart(t: number, size: number, toSize: number): number {
  return t >= toSize ? size : Math.floor((t * size) / toSize);
}

/** The target pixel source pixel `s` falls in. */
function blockOf(s: number, size: number, toSize: number): number {
  let t = Math.min(toSize - 1, Math.floor(((s + 1) * toSize) / size));
  while (blockStart(t, size, toSize) > s) t--;
  return t;
}

export interface ThumbnailRegion {
  /** In thumbnail pixels. */
  target: Rect;
  /** The source pixels exactly under it. */
  source: Rect;
}

/**
 * The part of a `to`-sized thumbnail of a `from`-sized screen that `changed` (screen pixels)
 * touches, and the source block under it.
 */
export function thumbnailRegion(
  changed: Rect,
  from: { width: number; height: number },
  to: { width: number; height: number },
): ThumbnailRegion {
  const x0 = blockOf(changed.x, from.width, to.width);
  const x1 = blockOf(changed.x + changed.width - 1, from.width, to.width) + 1;
  const y0 = blockOf(changed.y, from.height, to.height);
  const y1 = blockOf(changed.y + changed.height - 1, from.height, to.height) + 1;
  const sx0 = blockStart(x0, from.width, to.width);
  const sy0 = blockStart(y0, from.height, to.height);
  return {
    target: { x: x0, y: y0, width: x1 - x0, height: y1 - y0 },
    source: {
      x: sx0,
      y: sy0,
      width: blockStart(x1, from.width, to.width) - sx0,
      height: blockStart(y1, from.height, to.height) - sy0,
    },
  };
}

/**
 * `rgba` — the source block under `target` of a `from`-sized screen scaled to `to` (the whole
 * screen when `target` is the whole thumbnail) — averaged down to `target`'s size, as RGB.
 */
export function scaleDown(
  rgba: Uint8Array,
  from: { width: number; height: number },
  to: { width: number; height: number },
  target: Rect = { x: 0, y: 0, width: to.width, height: to.height },
): Buffer {
  if (to.width > from.width || to.height > from.height || to.width < 1 || to.height < 1) {
    throw new RangeError(
      `scaleDown: ${String(from.width)}×${String(from.height)} cannot become ${String(to.width)}×${String(to.height)}`,
    );
  }
  const sx0 = blockStart(target.x, from.width, to.width);
  const sy0 = blockStart(target.y, from.height, to.height);
  const sourceWidth = blockStart(target.x + target.width, from.width, to.width) - sx0;
  // The target column each source column of the block falls in, and each target's width.
  const column = new Uint32Array(sourceWidth);
  const columns = new Uint32Array(target.width);
  for (let t = 0; t < target.width; t++) {
    const start = blockStart(target.x + t, from.width, to.width) - sx0;
    const end = blockStart(target.x + t + 1, from.width, to.width) - sx0;
    column.fill(t, start, end);
    columns[t] = end - start;
  }
  const out = Buffer.alloc(target.width * target.height * 3);
  const sums = new Uint32Array(target.width * 3);
  for (let y = 0; y < target.height; y++) {
    const rowStart = blockStart(target.y + y, from.height, to.height) - sy0;
    const rowEnd = blockStart(target.y + y + 1, from.height, to.height) - sy0;
    sums.fill(0);
    for (let row = rowStart; row < rowEnd; row++) {
      let at = row * sourceWidth * 4;
      for (let x = 0; x < sourceWidth; x++, at += 4) {
        const s = column[x]! * 3;
        sums[s]! += rgba[at]!;
        sums[s + 1]! += rgba[at + 1]!;
        sums[s + 2]! += rgba[at + 2]!;
      }
    }
    let o = y * target.width * 3;
    for (let x = 0; x < target.width; x++) {
      const n = columns[x]! * (rowEnd - rowStart);
      const half = n >>> 1;
      out[o++] = Math.floor((sums[x * 3]! + half) / n);
      out[o++] = Math.floor((sums[x * 3 + 1]! + half) / n);
      out[o++] = Math.floor((sums[x * 3 + 2]! + half) / n);
    }
  }
  return out;
}
