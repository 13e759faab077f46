import { describe, expect, it } from 'vitest';
import { chromeFloats } from './floatingChrome.js';
import type { Crop } from './urlViewport.js';

const crop = (vw: number, vh: number, scale?: number): Crop => ({
  vx: 0,
  vy: 0,
  vw,
  vh,
  scale,
  monitor: undefined,
});

describe('chromeFloats', () => {
  it('floats when a fitted viewport fills the window: the bar would shrink the picture', () => {
    expect(chromeFloats({ width: 1280, height: 800 }, 40, crop(1280, 800))).toBe(true);
  });

  it('stays docked when a fitted viewport is held by the width and leaves room above it', () => {
    expect(chromeFloats({ width: 1280, height: 800 }, 40, crop(1280, 600))).toBe(false);
  });

  it('floats when a viewport at its own scale would reach under the bar', () => {
    expect(chromeFloats({ width: 1000, height: 700 }, 40, crop(800, 600, 1.25))).toBe(true);
    expect(chromeFloats({ width: 1000, height: 800 }, 40, crop(800, 600, 1.25))).toBe(false);
  });

  it('counts the key-reading banner with the bar', () => {
    expect(chromeFloats({ width: 1280, height: 900 }, 74, crop(1280, 840, 1))).toBe(true);
    expect(chromeFloats({ width: 1280, height: 900 }, 40, crop(1280, 840, 1))).toBe(false);
  });
});
