import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Rect } from './rect.js';
import { solidRects, type SolidGroup } from './solidFill.js';

const W = 24;
const H = 16;
const RED = 0xff0000ff;
const BLACK = 0xff000000;

/** What a browser shows after filling the groups in order over `rect`. */
function paint(groups: readonly SolidGroup[], rect: Rect): Uint32Array {
  const out = new Uint32Array(W * H);
  for (const { colour, rects } of groups)
    for (const r of rects)
      for (let y = r.y; y < r.y + r.height; y++)
        for (let x = r.x; x < r.x + r.width; x++) out[y * W + x] = colour;
  // Only the region itself is compared.
  const mask = new Uint32Array(W * H);
  for (let y = rect.y; y < rect.y + rect.height; y++)
    for (let x = rect.x; x < rect.x + rect.width; x++) mask[y * W + x] = out[y * W + x]!;
  return mask;
}

function region(pixels: Uint32Array, rect: Rect): Uint32Array {
  const out = new Uint32Array(W * H);
  for (let y = rect.y; y < rect.y + rect.height; y++)
    for (let x = rect.x; x < rect.x + rect.width; x++) out[y * W + x] = pixels[y * W + x]!;
  return out;
}

describe('solidRects', () => {
  it('draws a background colour change with a hollow cursor as five rectangles', () => {
    const px = new Uint32Array(W * H).fill(RED);
    // A 6×8 hollow rectangle at (3, 2).
    for (let x = 3; x < 9; x++) px[2 * W + x] = px[9 * W + x] = BLACK;
    for (let y = 2; y < 10; y++) px[y * W + 3] = px[y * W + 8] = BLACK;
    const rect = { x: 0, y: 0, width: W, height: H };
    const groups = solidRects(px, W, rect, 16)!;
    expect(groups[0]).toEqual({ colour: RED, rects: [rect] });
    expect(groups.flatMap((g) => g.rects)).toHaveLength(5);
    expect(paint(groups, rect)).toEqual(region(px, rect));
  });

  it('gives up on content that needs many rectangles (text, photos)', () => {
    const px = new Uint32Array(W * H).map((_, i) => 0xff000000 | ((i * 2654435761) >>> 8));
    expect(solidRects(px, W, { x: 0, y: 0, width: W, height: H }, 16)).toBeUndefined();
  });

  it('rebuilds any region it accepts exactly (property)', () => {
    const palette = [RED, BLACK, 0xffffffff];
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            x: fc.integer({ min: 0, max: W - 1 }),
            y: fc.integer({ min: 0, max: H - 1 }),
            w: fc.integer({ min: 1, max: 8 }),
            h: fc.integer({ min: 1, max: 8 }),
            c: fc.integer({ min: 0, max: 2 }),
          }),
          { maxLength: 6 },
        ),
        fc.integer({ min: 0, max: 6 }),
        fc.integer({ min: 0, max: 4 }),
        (boxes, rx, ry) => {
          const px = new Uint32Array(W * H).fill(palette[0]!);
          for (const b of boxes)
            for (let y = b.y; y < Math.min(H, b.y + b.h); y++)
              for (let x = b.x; x < Math.min(W, b.x + b.w); x++) px[y * W + x] = palette[b.c]!;
          const rect = { x: rx, y: ry, width: W - rx - 2, height: H - ry - 1 };
          const groups = solidRects(px, W, rect, 40);
          if (groups === undefined) return;
          expect(paint(groups, rect)).toEqual(region(px, rect));
          for (const g of groups)
            for (const r of g.rects) {
              expect(r.x).toBeGreaterThanOrEqual(rect.x);
              expect(r.x + r.width).toBeLessThanOrEqual(rect.x + rect.width);
            }
        },
      ),
      { numRuns: 300 },
    );
  });
});
