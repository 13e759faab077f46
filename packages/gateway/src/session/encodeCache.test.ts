import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { RegionEncodeCache } from './encodeCache.js';

describe('RegionEncodeCache', () => {
  it('encodes a region once per framebuffer state and copies pixels out at call time', async () => {
    const fb = Buffer.alloc(8 * 4 * 4, 0xff);
    const cache = new RegionEncodeCache();
    const rect = { x: 2, y: 1, width: 3, height: 2 };
    const first = cache.region(fb, 8, rect);
    expect(cache.region(fb, 8, rect)).toBe(first);
    expect(cache.hits).toBe(1);
    fb.fill(0); // the RFB client keeps writing; the pending encode must not see it
    const { data } = await sharp(await first)
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect([...data.subarray(0, 3)]).toEqual([255, 255, 255]);
    cache.invalidate();
    const second = cache.region(fb, 8, rect);
    expect(second).not.toBe(first);
    const again = await sharp(await second)
      .raw()
      .toBuffer();
    expect([...again.subarray(0, 3)]).toEqual([0, 0, 0]);
  });
});
