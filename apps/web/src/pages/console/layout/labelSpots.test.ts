import { describe, expect, it } from 'vitest';
import { placeLabels, shortName, type Measure, type Spot } from './labelSpots.js';

// 7 px a character, 16 px a line: a stand-in for the browser's text metrics.
const measure: Measure = (lines) => ({
  width: Math.max(...lines.map((l) => l.length * 7)),
  height: lines.length * 16,
});

const area = { width: 800, height: 500 };

const overlap = (a: Spot, b: Spot) =>
  Math.min(a.x + a.width, b.x + b.width) > Math.max(a.x, b.x) &&
  Math.min(a.y + a.height, b.y + b.height) > Math.max(a.y, b.y);

describe('placeLabels', () => {
  it('writes the name and details inside a rectangle with room for them', () => {
    const [placed] = placeLabels(
      [
        {
          rect: { x: 0, y: 0, width: 400, height: 300 },
          name: 'Monitor 1',
          short: '1',
          lines: ['1920 × 1080 at 0, 0'],
        },
      ],
      measure,
      area,
    );
    expect(placed).toMatchObject({ text: 'full', inside: true, x: 3, y: 3 });
  });

  it('falls back to the short name inside, then outside, for small rectangles', () => {
    const [short, outside] = placeLabels(
      [
        {
          rect: { x: 10, y: 100, width: 30, height: 24 },
          name: 'Monitor 1 “left”',
          short: '1',
          lines: [],
        },
        { rect: { x: 300, y: 100, width: 8, height: 8 }, name: 'Monitor 2', short: '2', lines: [] },
      ],
      measure,
      area,
    );
    expect(short).toMatchObject({ text: 'short', inside: true });
    expect(outside).toMatchObject({ text: 'name', inside: false, y: 100 - 3 - 16 });
  });

  it('never places two labels over each other, whatever the rectangles do', () => {
    // Small monitors side by side and stacked, a mask over a monitor's corner, a fixed label.
    const rects = [
      { x: 0, y: 0, width: 200, height: 120 },
      { x: 200, y: 0, width: 40, height: 30 },
      { x: 200, y: 30, width: 40, height: 30 },
      { x: 240, y: 0, width: 12, height: 12 },
      { x: 0, y: 0, width: 90, height: 40 },
    ];
    const fixed = [{ x: 100, y: 100, width: 100, height: 16 }];
    const placed = placeLabels(
      rects.map((rect, i) => ({
        rect,
        name: `Monitor ${i + 1} “a long name”`,
        short: shortName('monitor', i),
        lines: ['640 × 480 at 0, 0'],
      })),
      measure,
      area,
      fixed,
    );
    const boxes = [...placed.filter((p) => p !== null), ...fixed];
    for (let i = 0; i < boxes.length; i++)
      for (let j = i + 1; j < boxes.length; j++) expect(overlap(boxes[i]!, boxes[j]!)).toBe(false);
    expect(placed.every((p) => p !== null)).toBe(true);
  });

  it('leaves out a label with no room anywhere rather than covering another', () => {
    const tiny = { width: 30, height: 30 };
    const placed = placeLabels(
      [
        { rect: { x: 0, y: 0, width: 30, height: 30 }, name: 'Monitor 1', short: '1', lines: [] },
        { rect: { x: 0, y: 0, width: 30, height: 30 }, name: 'Monitor 2', short: '2', lines: [] },
      ],
      measure,
      tiny,
    );
    expect(placed[0]).toMatchObject({ text: 'short', inside: true });
    expect(placed[1]).toBeNull();
  });
});
