// Privacy masks in pixels: the image rectangles a capture blacks out (rounded outwards, clipped),
// blacking out sampled pixels, and which desktop points are private.
import { describe, expect, it } from 'vitest';
import { blackOut, isMasked, masksInImage } from './masks.js';

const mask = { x: 10, y: 20, width: 30, height: 40 };

describe('privacy masks', () => {
  it('map into a capture through its region and scale, rounding outwards and clipping', () => {
    expect(masksInImage([mask], { x: 0, y: 0, width: 100, height: 100 }, 1)).toEqual([mask]);
    expect(masksInImage([mask], { x: 20, y: 30, width: 100, height: 100 }, 0.5)).toEqual([
      { x: 0, y: 0, width: 10, height: 15 },
    ]);
    // At scale 1.05 the mask spans image x 10.5..42 and y 21..63: every partly covered pixel.
    expect(masksInImage([mask], { x: 0, y: 0, width: 100, height: 100 }, 1.05)).toEqual([
      { x: 10, y: 21, width: 32, height: 42 },
    ]);
    expect(masksInImage([mask], { x: 200, y: 200, width: 10, height: 10 }, 1)).toEqual([]);
  });

  it('black out sampled pixels inside a mask, opaque, and nothing else', () => {
    const width = 50;
    const height = 70;
    const data = new Uint8ClampedArray(width * height * 4).fill(200);
    blackOut(data, width, height, [mask, { x: 45, y: 65, width: 100, height: 100 }]);
    const at = (x: number, y: number) => [
      ...data.slice((y * width + x) * 4, (y * width + x) * 4 + 4),
    ];
    expect(at(10, 20)).toEqual([0, 0, 0, 255]);
    expect(at(39, 59)).toEqual([0, 0, 0, 255]);
    expect(at(40, 59)).toEqual([200, 200, 200, 200]);
    expect(at(9, 20)).toEqual([200, 200, 200, 200]);
    expect(at(49, 69)).toEqual([0, 0, 0, 255]);
  });

  it('say which desktop points are private', () => {
    expect(isMasked([mask], { x: 10, y: 20 })).toBe(true);
    expect(isMasked([mask], { x: 39, y: 59 })).toBe(true);
    expect(isMasked([mask], { x: 40, y: 59 })).toBe(false);
    expect(isMasked([], { x: 10, y: 20 })).toBe(false);
  });
});
