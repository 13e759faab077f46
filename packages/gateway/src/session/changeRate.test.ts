import { describe, expect, it } from 'vitest';
import { ChangeRate, FREQUENT_CHANGES } from './changeRate.js';

describe('ChangeRate', () => {
  it('calls an area busy after FREQUENT_CHANGES updates within a second, and idle after', () => {
    const rate = new ChangeRate(640, 480);
    const area = { x: 0, y: 0, width: 128, height: 128 };
    for (let i = 0; i < FREQUENT_CHANGES; i++) {
      expect(rate.busy(area, 1000 + i * 100)).toBe(false);
      rate.beginUpdate();
      rate.changed(area, 1000 + i * 100);
    }
    expect(rate.busy(area, 1300)).toBe(true);
    // Elsewhere nothing changed.
    expect(rate.busy({ x: 300, y: 300, width: 64, height: 64 }, 1300)).toBe(false);
    // A second later the area has calmed down.
    expect(rate.busy(area, 2300)).toBe(false);
  });

  it('counts one update once, however many rectangles it has in a tile', () => {
    const rate = new ChangeRate(640, 480);
    rate.beginUpdate();
    for (let i = 0; i < 10; i++) rate.changed({ x: i, y: 0, width: 1, height: 1 }, 1000);
    expect(rate.busy({ x: 0, y: 0, width: 64, height: 64 }, 1000)).toBe(false);
  });
});
