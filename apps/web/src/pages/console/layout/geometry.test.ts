// The editor's geometry: snapping moved and resized edges to the desktop's and each other's,
// how far they snap at each zoom, keeping a monitor's shape, staying inside the world, drawing,
// nudging, and the suggested layout at 1:1.
import { MAX_DESKTOP_PX } from '@overlay-companion/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MIN_RECT_PX,
  drawnRect,
  editorWorld,
  growRect,
  moveRect,
  nudgeRect,
  overlappingPairs,
  resizeRect,
  snapShift,
  snapTargets,
  snapThreshold,
  suggestLayout,
  type DragOptions,
  type Rect,
} from './geometry.js';

const desktop = { width: 3840, height: 1080 };
const world = { width: 4800, height: 1350 };
const left: Rect = { x: 0, y: 0, width: 1920, height: 1080 };
const options = (others: Rect[] = [left], threshold = 20): DragOptions => ({
  world,
  targets: snapTargets(desktop, others),
  threshold,
});

describe('snapping', () => {
  it('shifts the nearest edge onto a target within the threshold, else not at all', () => {
    expect(snapShift([100, 300], [0, 310], 20)).toBe(10);
    expect(snapShift([100, 300], [0, 350], 20)).toBe(0);
    expect(snapShift([15, 300], [0, 305], 20)).toBe(5);
  });

  it('snaps a moved rectangle to the other monitor and to the desktop edges', () => {
    const right = { x: 2500, y: 300, width: 1920, height: 1080 };
    // Dropped 12 px right of the left monitor's edge and 9 px below the top: snaps to both.
    expect(moveRect(right, 1932 - 2500, 9 - 300, options())).toEqual({
      x: 1920,
      y: 0,
      width: 1920,
      height: 1080,
    });
    // Far from every edge: lands where dropped.
    expect(moveRect(right, -200, -100, options())).toMatchObject({ x: 2300, y: 200 });
    // No snapping without a threshold.
    expect(moveRect(right, 1932 - 2500, 0, options([left], 0))).toMatchObject({ x: 1932 });
  });

  it('keeps a moved rectangle inside the world', () => {
    expect(moveRect(left, -500, 5000, options([]))).toEqual({ ...left, x: 0, y: 1350 - 1080 });
  });

  it('snaps the edge a handle moves, and only that one', () => {
    const r = { x: 2000, y: 0, width: 1000, height: 500 };
    expect(resizeRect(r, 'w', -70, 0, options())).toEqual({
      x: 1920,
      y: 0,
      width: 1080,
      height: 500,
    });
    expect(resizeRect(r, 'e', 830, 0, options())).toEqual({
      x: 2000,
      y: 0,
      width: 1840,
      height: 500,
    });
    expect(resizeRect(r, 's', 0, 575, options())).toMatchObject({ height: 1080 });
  });

  it('pulls from the same few screen pixels at every zoom, and never from fewer than 16 desktop px', () => {
    expect(snapThreshold(0.25)).toBe(64);
    expect(snapThreshold(1)).toBe(16);
    expect(snapThreshold(2)).toBe(16);
    expect(snapThreshold(0)).toBe(16);
    // A laptop's picture of a two-monitor layout at 1:1 is drawn at about a fifth. Dropped 71
    // desktop px (14 screen px) right of the other monitor there: lands flush.
    const right = { x: 1991, y: 0, width: 1280, height: 1024 };
    expect(moveRect(right, 0, 0, options([left], snapThreshold(0.2)))).toMatchObject({ x: 1920 });
    // 8 screen px was the old pull: that same drop stayed 71 px away.
    expect(moveRect(right, 0, 0, options([left], 8 / 0.2))).toMatchObject({ x: 1991 });
  });
});

describe('resizing', () => {
  it('keeps the screen shape, anchored at the opposite corner', () => {
    const r = { x: 1000, y: 100, width: 800, height: 450 };
    const wide = { ...options([], 0), aspect: 16 / 9 };
    expect(resizeRect(r, 'se', 160, 0, wide)).toEqual({ x: 1000, y: 100, width: 960, height: 540 });
    expect(resizeRect(r, 'nw', -160, 0, wide)).toEqual({ x: 840, y: 10, width: 960, height: 540 });
    expect(resizeRect(r, 's', 0, 90, wide)).toEqual({ x: 1000, y: 100, width: 960, height: 540 });
    expect(resizeRect(r, 'w', -160, 0, wide)).toEqual({ x: 840, y: 100, width: 960, height: 540 });
  });

  it('derives the other side from the rounded one, so the shape holds in whole pixels', () => {
    const r = { x: 0, y: 0, width: 1920, height: 1080 };
    for (const dx of [131.6, 140.7, 0.4, 33.3]) {
      const out = resizeRect(r, 'e', dx, 0, { ...options([], 0), aspect: 16 / 9 });
      expect(out.height).toBe(Math.round((out.width * 9) / 16));
    }
  });

  it('never gets smaller than the minimum or leaves the world', () => {
    const r = { x: 100, y: 100, width: 200, height: 200 };
    expect(resizeRect(r, 'e', -1000, 0, options([], 0))).toMatchObject({
      x: 100,
      width: MIN_RECT_PX,
    });
    expect(resizeRect(r, 'nw', -1000, -1000, options([], 0))).toEqual({
      x: 0,
      y: 0,
      width: 300,
      height: 300,
    });
    const big = { ...options([], 0), aspect: 1 };
    expect(resizeRect(r, 'se', 10_000, 0, big)).toEqual({
      x: 100,
      y: 100,
      width: 1250,
      height: 1250,
    });
  });

  it('stays whole and inside the world for any drag', () => {
    const rect = fc.record({
      x: fc.integer({ min: 0, max: 2000 }),
      y: fc.integer({ min: 0, max: 600 }),
      width: fc.integer({ min: MIN_RECT_PX, max: 2000 }),
      height: fc.integer({ min: MIN_RECT_PX, max: 600 }),
    });
    const handle = fc.constantFrom('n', 's', 'e', 'w', 'ne', 'nw', 'se', 'sw' as const);
    fc.assert(
      fc.property(
        rect,
        handle,
        fc.double({ min: -5000, max: 5000, noNaN: true }),
        fc.double({ min: -5000, max: 5000, noNaN: true }),
        fc.option(fc.constantFrom(16 / 9, 4 / 3, 1, 9 / 16), { nil: undefined }),
        (start, h, dx, dy, aspect) => {
          const out = resizeRect(start, h, dx, dy, { ...options(), aspect });
          for (const v of Object.values(out)) expect(Number.isInteger(v)).toBe(true);
          expect(out.x).toBeGreaterThanOrEqual(0);
          expect(out.y).toBeGreaterThanOrEqual(0);
          expect(out.width).toBeGreaterThanOrEqual(MIN_RECT_PX);
          expect(out.height).toBeGreaterThanOrEqual(MIN_RECT_PX);
          expect(out.x + out.width).toBeLessThanOrEqual(world.width);
          expect(out.y + out.height).toBeLessThanOrEqual(world.height);
        },
      ),
    );
  });
});

describe('drawing and keys', () => {
  it('draws in any direction, snapped to nearby edges', () => {
    expect(drawnRect({ x: 600, y: 500 }, { x: 105, y: 1075 }, options([], 10))).toEqual({
      x: 105,
      y: 500,
      width: 495,
      height: 580,
    });
  });

  it('nudges and grows by whole pixels inside the world, keeping the shape when asked', () => {
    expect(nudgeRect(left, 10, -1, world)).toEqual({ ...left, x: 10, y: 0 });
    expect(nudgeRect(left, 5000, 0, world)).toMatchObject({ x: world.width - left.width });
    expect(growRect(left, 16, 0, world, 16 / 9)).toEqual({ ...left, width: 1936, height: 1089 });
    expect(growRect(left, 0, -10, world)).toEqual({ ...left, height: 1070 });
  });

  it('finds overlapping rectangles but not touching ones', () => {
    expect(overlappingPairs([left, { ...left, x: 1920 }, { ...left, x: 1900, y: 1000 }])).toEqual([
      [0, 2],
      [1, 2],
    ]);
  });
});

describe('suggestLayout', () => {
  it('puts the screens side by side at their own sizes (1:1), tops aligned', () => {
    expect(
      suggestLayout([
        { width: 1920, height: 1080 },
        { width: 1280, height: 1024 },
      ]),
    ).toEqual([
      { x: 0, y: 0, width: 1920, height: 1080 },
      { x: 1920, y: 0, width: 1280, height: 1024 },
    ]);
  });

  it('keeps the arrangement the browser reported, its top-left screen at 0, 0', () => {
    expect(
      suggestLayout([
        { width: 1920, height: 1080, left: 0, top: 0 },
        { width: 1920, height: 1080, left: -1920, top: 300 },
        { width: 1280, height: 1024, left: 0, top: -1024 },
      ]),
    ).toEqual([
      { x: 1920, y: 1024, width: 1920, height: 1080 },
      { x: 0, y: 1324, width: 1920, height: 1080 },
      { x: 1920, y: 0, width: 1280, height: 1024 },
    ]);
  });

  it('lays out side by side when positions overlap (mirrored screens) or some are unknown', () => {
    const row = [
      { x: 0, y: 0, width: 1920, height: 1080 },
      { x: 1920, y: 0, width: 1920, height: 1080 },
    ];
    expect(
      suggestLayout([
        { width: 1920, height: 1080, left: 0, top: 0 },
        { width: 1920, height: 1080, left: 0, top: 0 },
      ]),
    ).toEqual(row);
    expect(
      suggestLayout([
        { width: 1920, height: 1080, left: 0, top: 500 },
        { width: 1920, height: 1080 },
      ]),
    ).toEqual(row);
  });

  it('is 1:1 with no overlaps, its bounding box at 0, 0, for any screens', () => {
    const screen = fc.record({
      width: fc.integer({ min: 320, max: 7680 }),
      height: fc.integer({ min: 240, max: 4320 }),
      left: fc.option(fc.integer({ min: -8000, max: 8000 }), { nil: undefined }),
      top: fc.option(fc.integer({ min: -8000, max: 8000 }), { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.array(screen, { minLength: 1, maxLength: 4 }), (screens) => {
        const rects = suggestLayout(screens);
        expect(rects.map((r) => [r.width, r.height])).toEqual(
          screens.map((s) => [s.width, s.height]),
        );
        expect(Math.min(...rects.map((r) => r.x))).toBe(0);
        expect(Math.min(...rects.map((r) => r.y))).toBe(0);
        expect(overlappingPairs(rects)).toEqual([]);
      }),
    );
  });

  it('scales down by one factor only past the largest desktop, edges still touching', () => {
    const wide = Array.from({ length: 5 }, () => ({ width: 7680, height: 4320 }));
    const rects = suggestLayout(wide);
    const last = rects[rects.length - 1];
    expect((last?.x ?? 0) + (last?.width ?? 0)).toBeLessThanOrEqual(MAX_DESKTOP_PX);
    rects.forEach((r, i) => {
      if (i > 0) expect(r.x).toBe((rects[i - 1]?.x ?? 0) + (rects[i - 1]?.width ?? 0));
    });
  });
});

describe('editorWorld', () => {
  it('leaves room for the largest rectangle beside and below the desktop or the layout', () => {
    const two = [
      { width: 1920, height: 1080 },
      { width: 1280, height: 1024 },
    ];
    expect(editorWorld({ width: 1920, height: 1200 }, { width: 3200, height: 1080 }, two)).toEqual({
      width: 5120,
      height: 2280,
    });
    expect(
      editorWorld(null, { width: 30000, height: 100 }, [{ width: 30000, height: 100 }]),
    ).toEqual({ width: 32767, height: 200 });
  });
});
