// Partial repaints: what came and went between two frames by identity, 'all' when the order
// changed or too much did, and the device pixels a box can touch.
import type { Overlay } from '@overlay-companion/protocol';
import { describe, expect, it } from 'vitest';
import {
  MAX_PARTIAL_CHANGES,
  devicePixels,
  overlayChanges,
  overlayDelta,
  touches,
} from './overlayDiff.js';

function overlay(id: string): Overlay {
  return {
    overlay_id: id,
    bounds: { x: 0, y: 0, width: 1, height: 1 },
    color: 'red',
    opacity: 0.5,
    click_through: true,
    monitor_index: 0,
    created_at: 0,
  };
}

const diff = (before: Overlay[], after: Overlay[]) =>
  overlayChanges(before, new Set(before), after, new Set(after));

describe('overlayChanges', () => {
  const [a, b, c, d] = ['a', 'b', 'c', 'd'].map(overlay) as [Overlay, Overlay, Overlay, Overlay];

  it('lists what went and what came', () => {
    expect(diff([a, b, c], [a, c, d])).toEqual([b, d]);
    expect(diff([a, b], [a, b])).toEqual([]);
    // Drawn again under its id: a new object on top; the old one went.
    const again = { ...b };
    expect(diff([a, b, c], [a, c, again])).toEqual([b, again]);
  });

  it('says all when the order of what stayed changed, or too much changed', () => {
    expect(diff([a, b, c], [b, a, c])).toBe('all');
    const many = Array.from({ length: MAX_PARTIAL_CHANGES + 1 }, (_, i) => overlay(`n${i}`));
    expect(diff([a], [a, ...many])).toBe('all');
    expect(diff([a], [a, ...many.slice(1)])).toHaveLength(MAX_PARTIAL_CHANGES);
  });
});

describe('overlayDelta', () => {
  const [a, b, c, d] = ['a', 'b', 'c', 'd'].map(overlay) as [Overlay, Overlay, Overlay, Overlay];
  /** The edit, and `before` with it applied as the worker applies it (by id, then on top). */
  const delta = (before: Overlay[], after: Overlay[]) => {
    const edit = overlayDelta(before, after);
    const gone = new Set(edit.removed.map((o) => o.overlay_id));
    const applied = before.filter((o) => !gone.has(o.overlay_id)).concat(edit.added);
    expect(applied).toEqual(after);
    applied.forEach((o, i) => expect(o).toBe(after[i]));
    return edit;
  };

  it('gives what went and what came on top, however many', () => {
    expect(delta([a, b, c], [a, c, d])).toEqual({ removed: [b], added: [d] });
    const again = { ...a };
    expect(delta([a, b], [b, again])).toEqual({ removed: [a], added: [again] });
    const many = Array.from({ length: 500 }, (_, i) => overlay(`n${i}`));
    expect(delta([a], [a, ...many])).toEqual({ removed: [], added: many });
    expect(delta([], [])).toEqual({ removed: [], added: [] });
    expect(delta([a, b], [])).toEqual({ removed: [a, b], added: [] });
  });

  it('still gives exactly `after` when the pile was reordered or a newcomer is underneath', () => {
    expect(delta([a, b, c], [b, a, c])).toEqual({ removed: [a, c], added: [a, c] });
    expect(delta([a, b], [d, a, b])).toEqual({ removed: [a, b], added: [d, a, b] });
    expect(delta([a, b], [a, d, b])).toEqual({ removed: [b], added: [d, b] });
  });
});

describe('devicePixels', () => {
  it('rounds out with a pixel to spare and clips to the canvas', () => {
    expect(devicePixels(10.4, 5, 10, 10, 2, 100, 100)).toEqual({ x0: 19, y0: 9, x1: 42, y1: 31 });
    expect(devicePixels(-20, -20, 10, 10, 1, 100, 100)).toBeUndefined();
    expect(devicePixels(95, 95, 10, 10, 1, 100, 100)).toEqual({ x0: 94, y0: 94, x1: 100, y1: 100 });
  });

  it('tells whether two rectangles share a pixel', () => {
    const r = { x0: 0, y0: 0, x1: 10, y1: 10 };
    expect(touches(r, { x0: 9, y0: 9, x1: 12, y1: 12 })).toBe(true);
    expect(touches(r, { x0: 10, y0: 0, x1: 12, y1: 10 })).toBe(false);
  });
});
