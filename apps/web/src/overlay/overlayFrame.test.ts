// What a frame of the overlay layer paints: only overlays in this window's viewport, at
// (desktop - v) * scale, never empty ones; and which labels get a tag when there are too many.
import type { Overlay } from '@overlay-companion/protocol';
import { describe, expect, it } from 'vitest';
import { forEachVisible, layerSize, pickLabels, type LabelItem } from './overlayFrame.js';

function overlay(id: string, x: number, y: number, width = 10, height = 10): Overlay {
  return {
    overlay_id: id,
    bounds: { x, y, width, height },
    color: 'red',
    opacity: 0.5,
    label: id,
    click_through: true,
    monitor_index: 0,
    created_at: 0,
  };
}

describe('forEachVisible', () => {
  it('paints what intersects a cropped viewport, in window pixels, in drawing order', () => {
    const viewport = { vx: 1000, vy: 200, vw: 400, vh: 300, scale: 2 };
    expect(layerSize(viewport)).toEqual({ width: 800, height: 600 });
    const overlays = [
      overlay('left-of-it', 980, 250, 20, 10), // ends exactly at vx: not shown
      overlay('across-the-edge', 990, 210, 20, 10),
      overlay('inside', 1100, 300),
      overlay('empty', 1100, 300, 0, 10),
      overlay('below-it', 1100, 500),
      overlay('last-pixel', 1399, 499, 5, 5),
    ];
    const seen: Array<[string, number, number, number, number]> = [];
    const shown = forEachVisible(overlays, viewport, (o, x, y, w, h) =>
      seen.push([o.overlay_id, x, y, w, h]),
    );
    expect(shown).toBe(3);
    expect(seen).toEqual([
      ['across-the-edge', -20, 20, 40, 20],
      ['inside', 200, 200, 20, 20],
      ['last-pixel', 798, 598, 10, 10],
    ]);
  });
});

describe('pickLabels', () => {
  const items: LabelItem[] = Array.from({ length: 10 }, (_, i) => ({
    overlay: overlay(`o${i}`, i, i),
    rect: { x: i, y: i, width: 1, height: 1 },
  }));
  const ids = (list: readonly LabelItem[]) => list.map((i) => i.overlay.overlay_id);

  it('keeps them all when few', () => {
    expect(pickLabels(items, null, 10)).toBe(items);
  });

  it('keeps the topmost, and the pointed-at one wherever it is', () => {
    expect(ids(pickLabels(items, null, 3))).toEqual(['o7', 'o8', 'o9']);
    expect(ids(pickLabels(items, 'o8', 3))).toEqual(['o7', 'o8', 'o9']);
    expect(ids(pickLabels(items, 'o1', 3))).toEqual(['o1', 'o8', 'o9']);
  });
});
