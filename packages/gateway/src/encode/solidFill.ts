// Describes a small region as a few solid rectangles when it is that simple — a background
// colour changing, a selection, a hollow or block text cursor, a window border — so the browser
// fills them (Guacamole `rect` + `cfill`) instead of decoding an image. A fill is drawn the
// moment its frame arrives, while an image waits for the browser's asynchronous decode; for the
// small changes a person waits on (a click highlighting something, a cursor blinking) that is
// most of the browser's share of the delay. guacd also sends solid areas as fills.
import type { Rect } from './rect.js';

/** Rectangles of one colour (RGBA bytes of the framebuffer read as one little-endian word). */
export interface SolidGroup {
  colour: number;
  rects: Rect[];
}

/**
 * The region as solid rectangles, drawn in order (the first group is the region's most common
 * colour over all of it), or undefined when that would take more than `maxRects` rectangles.
 * Runs of one colour are found row by row and stacked when the next row repeats them exactly.
 */
export function solidRects(
  pixels: Uint32Array,
  stride: number,
  rect: Rect,
  maxRects: number,
): SolidGroup[] | undefined {
  const background = mostCommon(pixels, stride, rect, maxRects + 1);
  if (background === undefined) return undefined;
  const open = new Map<string, Rect & { colour: number }>();
  const done: (Rect & { colour: number })[] = [];
  let count = 1;
  for (let y = rect.y; y < rect.y + rect.height; y++) {
    const row = y * stride;
    const seen = new Set<string>();
    for (let x = rect.x; x < rect.x + rect.width;) {
      const colour = pixels[row + x]!;
      let end = x + 1;
      while (end < rect.x + rect.width && pixels[row + end] === colour) end++;
      if (colour !== background) {
        const key = `${String(x)},${String(end)},${String(colour)}`;
        const run = open.get(key);
        if (run !== undefined && run.y + run.height === y) {
          run.height++;
        } else {
          if (++count > maxRects) return undefined;
          const started = { x, y, width: end - x, height: 1, colour };
          if (run !== undefined) done.push(run);
          open.set(key, started);
        }
        seen.add(key);
      }
      x = end;
    }
    // Runs this row did not continue are finished.
    for (const [key, run] of open) {
      if (!seen.has(key)) {
        done.push(run);
        open.delete(key);
      }
    }
  }
  done.push(...open.values());
  const groups = new Map<number, Rect[]>([[background, [rect]]]);
  for (const { colour, ...r } of done) groups.set(colour, [...(groups.get(colour) ?? []), r]);
  return [...groups].map(([colour, rects]) => ({ colour, rects }));
}

/** The most common pixel value in `rect`; undefined when it holds more than `limit` values. */
function mostCommon(
  pixels: Uint32Array,
  stride: number,
  rect: Rect,
  limit: number,
): number | undefined {
  const counts = new Map<number, number>();
  for (let y = rect.y; y < rect.y + rect.height; y++) {
    for (let i = y * stride + rect.x, end = i + rect.width; i < end; i++) {
      const value = pixels[i]!;
      counts.set(value, (counts.get(value) ?? 0) + 1);
    }
    if (counts.size > limit) return undefined;
  }
  let best: number | undefined;
  let bestCount = 0;
  for (const [value, n] of counts) {
    if (n > bestCount) {
      best = value;
      bestCount = n;
    }
  }
  return best;
}
