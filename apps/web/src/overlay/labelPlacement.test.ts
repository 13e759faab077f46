import { describe, expect, it } from 'vitest';
import { labelFontSize, placeLabel, type Box } from './labelPlacement.js';

const area = { width: 800, height: 600 };
const label = { width: 120, height: 18 };

function overlaps(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

describe('placeLabel', () => {
  it('puts the label above a box with room, never over a small target', () => {
    const box = { x: 300, y: 200, width: 16, height: 12 };
    const at = placeLabel(box, label, area);
    expect(at.side).toBe('above');
    expect(overlaps({ ...at, ...label }, box)).toBe(false);
  });

  it('goes below at the top edge, right or left when neither fits, inside only when nothing does', () => {
    expect(placeLabel({ x: 10, y: 5, width: 40, height: 20 }, label, area).side).toBe('below');
    const tall = { x: 10, y: 5, width: 40, height: 590 };
    expect(placeLabel(tall, label, area).side).toBe('right');
    expect(placeLabel({ ...tall, x: 660 }, label, area).side).toBe('left');
    expect(placeLabel({ x: 0, y: 0, width: 800, height: 600 }, label, area).side).toBe('inside');
  });

  it('keeps the label inside the visible area', () => {
    const at = placeLabel({ x: 760, y: 300, width: 30, height: 20 }, label, area);
    expect(at.x + label.width).toBeLessThanOrEqual(area.width);
    expect(at.x).toBeGreaterThanOrEqual(0);
    const left = placeLabel({ x: -50, y: 300, width: 30, height: 20 }, label, area);
    expect(left.x).toBe(0);
  });
});

describe('labelFontSize', () => {
  it('follows the zoom within readable bounds', () => {
    expect(labelFontSize(1)).toBe(13);
    expect(labelFontSize(0.3)).toBe(10);
    expect(labelFontSize(3)).toBe(18);
  });
});
