import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DirtyRegions } from './dirtyRegions.js';
import { area, contains, type Rect } from './rect.js';

const covered = (rects: readonly Rect[], x: number, y: number): boolean =>
  rects.some((r) => x >= r.x && x < r.x + r.width && y >= r.y && y < r.y + r.height);

describe('DirtyRegions', () => {
  it('keeps a one-character change small on a big screen', () => {
    const d = new DirtyRegions(1280, 800);
    d.add({ x: 40, y: 40, width: 7, height: 14 });
    d.add({ x: 900, y: 700, width: 7, height: 14 });
    const rects = d.take();
    expect(rects).toHaveLength(2);
    expect(rects.reduce((sum, r) => sum + area(r), 0)).toBe(2 * 7 * 14);
  });

  it('fuses the 64×64 tiles of a full-screen update into the whole screen', () => {
    const d = new DirtyRegions(1280, 800);
    for (let y = 0; y < 800; y += 64)
      for (let x = 0; x < 1280; x += 64) d.add({ x, y, width: 64, height: 64 });
    expect(d.take()).toEqual([{ x: 0, y: 0, width: 1280, height: 800 }]);
  });

  it('merges adjacent characters typed on one line', () => {
    const d = new DirtyRegions(1280, 800);
    for (let i = 0; i < 10; i++) d.add({ x: 40 + i * 7, y: 40, width: 7, height: 14 });
    expect(d.take()).toEqual([{ x: 40, y: 40, width: 70, height: 14 }]);
  });

  it('clips to the screen and ignores empty rectangles', () => {
    const d = new DirtyRegions(100, 100);
    d.add({ x: 90, y: 90, width: 50, height: 50 });
    d.add({ x: 10, y: 10, width: 0, height: 5 });
    expect(d.take()).toEqual([{ x: 90, y: 90, width: 10, height: 10 }]);
    expect(d.isEmpty).toBe(true);
  });

  it('never loses a dirty pixel and stays within the cap (property)', () => {
    const rect = fc.record({
      x: fc.integer({ min: -10, max: 200 }),
      y: fc.integer({ min: -10, max: 120 }),
      width: fc.integer({ min: 0, max: 60 }),
      height: fc.integer({ min: 0, max: 60 }),
    });
    fc.assert(
      fc.property(fc.array(rect, { maxLength: 80 }), (input) => {
        const d = new DirtyRegions(200, 120, { maxRects: 8 });
        for (const r of input) d.add(r);
        const out = d.list();
        expect(out.length).toBeLessThanOrEqual(8);
        for (const r of out)
          expect(contains({ x: 0, y: 0, width: 200, height: 120 }, r)).toBe(true);
        for (const r of input)
          for (let y = Math.max(0, r.y); y < Math.min(120, r.y + r.height); y += 3)
            for (let x = Math.max(0, r.x); x < Math.min(200, r.x + r.width); x += 3)
              expect(covered(out, x, y)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});
