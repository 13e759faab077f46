// Which painted tags came or went between two frames (so the canvas repaints only there), and
// when the answer is "repaint everything": too many changed, or the pile's order changed. The
// pixels are checked in Chromium (overlayWorker.browser.test.ts).
import { describe, expect, it } from 'vitest';
import { labelChanges, type PaintLabel } from './labelCanvas.js';

const tag = (id: string, x = 10, text = id): PaintLabel => ({
  overlay_id: id,
  text,
  x,
  y: 20,
  width: 60,
  height: 22,
  fontSize: 13,
});

describe('labelChanges', () => {
  it('nothing for the same list, or an equal one', () => {
    const list = [tag('a'), tag('b')];
    expect(labelChanges(list, list)).toEqual([]);
    expect(labelChanges(list, [tag('a'), tag('b')])).toEqual([]);
  });

  it('the tags that came and those that went, moved or with other words', () => {
    const [a, b, c] = [tag('a'), tag('b'), tag('c')];
    expect(labelChanges([a, b], [a, b, c])).toEqual([c]);
    expect(labelChanges([a, b, c], [a, c])).toEqual([b]);
    const moved = tag('b', 90);
    expect(labelChanges([a, b], [a, moved])).toEqual([b, moved]);
    const reworded = tag('b', 10, 'other words');
    expect(labelChanges([a, b], [a, reworded])).toEqual([b, reworded]);
  });

  it('everything when those in both are stacked in another order, or too many changed', () => {
    const [a, b] = [tag('a'), tag('b')];
    expect(labelChanges([a, b], [b, a])).toBe('all');
    const many = Array.from({ length: 70 }, (_, i) => tag(`n${i}`));
    expect(labelChanges([], many)).toBe('all');
    expect(labelChanges(many.slice(0, 10), many.slice(10, 20))).toHaveLength(20);
  });
});
