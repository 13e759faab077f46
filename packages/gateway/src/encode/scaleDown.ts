// Scales RGBA pixels down to a smaller size by averaging the block of the source each target pixel
// covers (a box filter), into tight RGB: a thumbnail of the screen (guacUser.ts's `thumbnail`
// attention). Every source pixel is read once, as one 32-bit word, so a 1280×800 screen takes
// about a millisecond — less than sharp's resize, which also needs the framebuffer's meaningless
// alpha dealt with first.
// The alpha channel is ignored. Target pixel t of a dimension covers source pixels
// [blockStart(t), blockStart(t + 1)), so part of a thumbnail can be scaled from just the source
// block under it (thumbnailRegion) and comes out the same as in the whole one.
import { endianness } from 'node:os';
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

/** A 32-bit word of RGBA is R | G << 8 | B << 16 | A << 24 here (the packed path reads words). */
const LITTLE_ENDIAN = endianness() === 'LE';

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
  // Where each target column's block starts in a source row (its end is the next one's start).
  const starts = new Uint32Array(target.width + 1);
  for (let t = 0; t <= target.width; t++) {
    starts[t] = blockStart(target.x + t, from.width, to.width) - sx0;
  }
  // Red and blue are summed together in one word (red in the low half, blue in the high half)
  // when a block's sum of one channel cannot overflow 16 bits: a third fewer additions and one
  // read per pixel instead of three. A 4K screen into a tile has 8×8 blocks, far from the limit.
  const blockArea = Math.ceil(from.width / to.width) * Math.ceil(from.height / to.height);
  const words = LITTLE_ENDIAN && blockArea * 255 < 0x10000 ? wordsOf(rgba) : undefined;
  const sumRb = new Uint32Array(target.width);
  const sumG = new Uint32Array(target.width);
  const sumB = new Uint32Array(target.width);
  const out = Buffer.alloc(target.width * target.height * 3);
  for (let y = 0; y < target.height; y++) {
    const rowStart = blockStart(target.y + y, from.height, to.height) - sy0;
    const rowEnd = blockStart(target.y + y + 1, from.height, to.height) - sy0;
    sumRb.fill(0);
    sumG.fill(0);
    if (words !== undefined) {
      for (let row = rowStart; row < rowEnd; row++) {
        addRowPacked(words, row * sourceWidth, starts, target.width, sumRb, sumG);
      }
    } else {
      sumB.fill(0);
      for (let row = rowStart; row < rowEnd; row++) {
        addRow(rgba, row * sourceWidth * 4, starts, target.width, sumRb, sumG, sumB);
      }
    }
    const rows = rowEnd - rowStart;
    let o = y * target.width * 3;
    for (let x = 0; x < target.width; x++) {
      const n = (starts[x + 1]! - starts[x]!) * rows;
      const half = n >>> 1;
      const rb = sumRb[x]!;
      const [r, b] = words !== undefined ? [rb & 0xffff, rb >>> 16] : [rb, sumB[x]!];
      out[o++] = Math.floor((r + half) / n);
      out[o++] = Math.floor((sumG[x]! + half) / n);
      out[o++] = Math.floor((b + half) / n);
    }
  }
  return out;
}

/** One source row (starting at word `at`) added into each target column's packed sums. */
function addRowPacked(
  words: Uint32Array,
  at: number,
  starts: Uint32Array,
  columns: number,
  sumRb: Uint32Array,
  sumG: Uint32Array,
): void {
  for (let t = 0; t < columns; t++) {
    let rb = 0;
    let g = 0;
    for (let x = at + starts[t]!, end = at + starts[t + 1]!; x < end; x++) {
      const v = words[x]!;
      rb += v & 0x00ff00ff;
      g += (v >>> 8) & 0xff;
    }
    sumRb[t]! += rb;
    sumG[t]! += g;
  }
}

/** One source row (starting at byte `at`) added into each target column's sums, per channel. */
function addRow(
  rgba: Uint8Array,
  at: number,
  starts: Uint32Array,
  columns: number,
  sumR: Uint32Array,
  sumG: Uint32Array,
  sumB: Uint32Array,
): void {
  for (let t = 0; t < columns; t++) {
    let r = 0;
    let g = 0;
    let b = 0;
    for (let i = at + starts[t]! * 4, end = at + starts[t + 1]! * 4; i < end; i += 4) {
      r += rgba[i]!;
      g += rgba[i + 1]!;
      b += rgba[i + 2]!;
    }
    sumR[t]! += r;
    sumG[t]! += g;
    sumB[t]! += b;
  }
}

/** The pixels as 32-bit words (a copy only when the bytes are not 4-aligned in their buffer). */
function wordsOf(rgba: Uint8Array): Uint32Array {
  const aligned = rgba.byteOffset % 4 === 0 ? rgba : new Uint8Array(rgba);
  return new Uint32Array(aligned.buffer, aligned.byteOffset, aligned.length >>> 2);
}
