// Change detection: a one-pixel change inside a rectangle changes its hash, a change outside
// does not, alpha is ignored, and the dirty rectangle covers exactly the changed cells.
import { describe, expect, it } from 'vitest';
import { dirtyRect, gridHashes, hashRect } from './pixelHash.js';

function image(width: number, height: number): Uint8ClampedArray {
  const data = new Uint8ClampedArray(width * height * 4);
  for (let i = 0; i < data.length; i += 4) data[i + 3] = 255;
  return data;
}

function setPixel(data: Uint8ClampedArray, width: number, x: number, y: number, red: number) {
  data[(y * width + x) * 4] = red;
}

describe('hashRect', () => {
  it('sees a single changed pixel inside the rectangle only', () => {
    const a = image(100, 50);
    const rect = { x: 10, y: 10, width: 20, height: 20 };
    const before = hashRect(a, 100, rect);
    setPixel(a, 100, 90, 40, 1);
    expect(hashRect(a, 100, rect)).toBe(before);
    setPixel(a, 100, 29, 29, 1);
    expect(hashRect(a, 100, rect)).not.toBe(before);
  });

  it('ignores alpha and clips to the image', () => {
    const a = image(4, 4);
    const whole = hashRect(a, 4, { x: 0, y: 0, width: 4, height: 4 });
    a[3] = 0;
    expect(hashRect(a, 4, { x: -5, y: -5, width: 100, height: 100 })).toBe(whole);
  });
});

describe('dirtyRect', () => {
  it('bounds the changed cells, clipped at the image edge', () => {
    const w = 100;
    const h = 70;
    const a = image(w, h);
    const before = gridHashes(a, w, h, 32);
    setPixel(a, w, 40, 5, 9);
    setPixel(a, w, 99, 69, 9);
    const after = gridHashes(a, w, h, 32);
    expect(dirtyRect(before, after, w, h, 32)).toEqual({ x: 32, y: 0, width: 68, height: 70 });
    expect(dirtyRect(after, after, w, h, 32)).toBeUndefined();
  });

  it('reports the whole image when the grid changed shape (desktop resized)', () => {
    expect(dirtyRect(new Uint32Array(1), new Uint32Array(2), 10, 10, 32)).toEqual({
      x: 0,
      y: 0,
      width: 10,
      height: 10,
    });
  });
});
