// The share of an area the AI's boxes cover, as a union: one big box, tiles and a stack count
// alike, and only what lies inside the area counts.
import { describe, expect, it } from 'vitest';
import { CoverGrid, MAX_COVERED_SHARE } from './coverLimit.js';

const area = { x: 100, y: 50, width: 1280, height: 720 };

describe('CoverGrid', () => {
  it('counts one box by the share of the area it covers', () => {
    const grid = new CoverGrid(area);
    grid.add(100, 50, 640, 720);
    expect(grid.share()).toBeCloseTo(0.5, 2);
    expect(grid.exceeds()).toBe(false);
    grid.add(740, 50, 60, 720); // a little more (the grid counts in 40 px steps here)
    expect(grid.exceeds()).toBe(true);
  });

  it('counts tiles as their union and a stack once', () => {
    const tiles = new CoverGrid(area);
    for (let x = 0; x < 4; x++)
      for (let y = 0; y < 4; y++) tiles.add(100 + x * 320, 50 + y * 180, 320, 180);
    expect(tiles.share()).toBeGreaterThan(MAX_COVERED_SHARE);
    const stack = new CoverGrid(area);
    for (let i = 0; i < 100; i++) stack.add(100, 50, 320, 720);
    expect(stack.share()).toBeCloseTo(0.25, 2);
  });

  it('ignores what lies outside the area, and an empty area is never covered', () => {
    const grid = new CoverGrid(area);
    grid.add(-5000, -5000, 5100, 5050);
    grid.add(1380, 770, 4000, 4000);
    expect(grid.share()).toBe(0);
    const empty = new CoverGrid({ x: 0, y: 0, width: 0, height: 0 });
    empty.add(0, 0, 100, 100);
    expect(empty.share()).toBe(0);
  });

  it('starts from another grid without changing it', () => {
    const boxes = new CoverGrid(area);
    boxes.add(100, 50, 640, 360);
    const withLabels = new CoverGrid(area, boxes);
    withLabels.add(740, 50, 640, 720);
    expect(boxes.share()).toBeCloseTo(0.25, 2);
    expect(withLabels.exceeds()).toBe(true);
  });
});
