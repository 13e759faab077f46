// fitScale: aspect-preserving fit in both directions and safe defaults for unknown sizes.
import { describe, expect, it } from 'vitest';
import { fitScale } from './fit.js';

describe('fitScale', () => {
  it('shrinks by the tighter dimension', () => {
    expect(fitScale({ width: 1280, height: 752 }, { width: 1280, height: 800 })).toBeCloseTo(0.94);
    expect(fitScale({ width: 640, height: 1000 }, { width: 1280, height: 800 })).toBe(0.5);
  });

  it('grows a small desktop to fill a large window', () => {
    expect(fitScale({ width: 2000, height: 1600 }, { width: 800, height: 600 })).toBe(2.5);
  });

  it('keeps 1 while a size is unknown', () => {
    expect(fitScale({ width: 0, height: 700 }, { width: 1280, height: 800 })).toBe(1);
    expect(fitScale({ width: 1000, height: 700 }, { width: 0, height: 0 })).toBe(1);
    expect(fitScale({ width: Number.NaN, height: 700 }, { width: 10, height: 10 })).toBe(1);
  });
});
