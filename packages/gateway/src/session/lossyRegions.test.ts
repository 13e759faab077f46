import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Rect } from '../encode/rect.js';
import { LossyRegions } from './lossyRegions.js';

const W = 48;
const H = 32;

const rectArb = fc
  .record({
    x: fc.integer({ min: 0, max: W - 1 }),
    y: fc.integer({ min: 0, max: H - 1 }),
    width: fc.integer({ min: 1, max: W }),
    height: fc.integer({ min: 1, max: H }),
  })
  .map((r) => ({ ...r, width: Math.min(r.width, W - r.x), height: Math.min(r.height, H - r.y) }));

const inside = (r: Rect, x: number, y: number) =>
  x >= r.x && x < r.x + r.width && y >= r.y && y < r.y + r.height;

describe('LossyRegions', () => {
  it('never loses a lossy pixel through copies and redraws (property)', () => {
    const op = fc.oneof(
      rectArb.map((rect) => ({ kind: 'lossy' as const, rect })),
      rectArb.map((rect) => ({ kind: 'exact' as const, rect })),
      fc
        .record({
          rect: rectArb,
          dx: fc.integer({ min: -20, max: 20 }),
          dy: fc.integer({ min: -12, max: 12 }),
        })
        .map(({ rect, dx, dy }) => {
          const x = Math.min(Math.max(0, rect.x + dx), W - rect.width);
          const y = Math.min(Math.max(0, rect.y + dy), H - rect.height);
          return {
            kind: 'copy' as const,
            op: { srcX: rect.x, srcY: rect.y, x, y, width: rect.width, height: rect.height },
          };
        }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 80 }), (ops) => {
        // The model: which pixels the browser shows lossy.
        let lossy = new Uint8Array(W * H);
        const regions = new LossyRegions();
        for (const o of ops) {
          if (o.kind === 'copy') {
            const next = lossy.slice();
            for (let y = 0; y < o.op.height; y++)
              for (let x = 0; x < o.op.width; x++)
                next[(o.op.y + y) * W + o.op.x + x] = lossy[(o.op.srcY + y) * W + o.op.srcX + x]!;
            lossy = next;
            regions.copied(o.op, 0);
          } else {
            for (let y = o.rect.y; y < o.rect.y + o.rect.height; y++)
              for (let x = o.rect.x; x < o.rect.x + o.rect.width; x++)
                lossy[y * W + x] = o.kind === 'lossy' ? 1 : 0;
            if (o.kind === 'lossy') regions.drawnLossy(o.rect, 0);
            else regions.drawnExact(o.rect);
          }
        }
        const settled = regions.takeSettled(1000, 300);
        for (let y = 0; y < H; y++)
          for (let x = 0; x < W; x++)
            if (lossy[y * W + x] === 1) expect(settled.some((r) => inside(r, x, y))).toBe(true);
        expect(regions.isEmpty).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('hands out a region only once it has been still for the settle time', () => {
    const regions = new LossyRegions();
    regions.drawnLossy({ x: 0, y: 0, width: 10, height: 10 }, 1000);
    regions.drawnLossy({ x: 20, y: 0, width: 10, height: 10 }, 1200);
    expect(regions.nextSettle(300)).toBe(1300);
    expect(regions.takeSettled(1299, 300)).toEqual([]);
    expect(regions.takeSettled(1300, 300)).toEqual([{ x: 0, y: 0, width: 10, height: 10 }]);
    // Drawn lossy again: the clock starts over.
    regions.drawnLossy({ x: 20, y: 0, width: 10, height: 10 }, 1450);
    expect(regions.takeSettled(1600, 300)).toEqual([]);
    expect(regions.takeSettled(1750, 300)).toHaveLength(1);
    expect(regions.nextSettle(300)).toBeUndefined();
  });
});
