import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { EncodePool } from '../encode/encodePool.js';
import { RegionEncodeCache } from './encodeCache.js';

const pool = new EncodePool(1);
afterAll(() => pool.close());

describe('RegionEncodeCache', () => {
  it('encodes a region once per framebuffer state and mode, copying pixels out at call time', async () => {
    const fb = Buffer.alloc(8 * 4 * 4, 0xff);
    const cache = new RegionEncodeCache(pool);
    const rect = { x: 2, y: 1, width: 3, height: 2 };
    const exact = { kind: 'lossless', mimetype: 'image/png' } as const;
    const first = cache.region(fb, 8, rect, exact);
    expect(cache.region(fb, 8, rect, exact)).toBe(first);
    expect(cache.hits).toBe(1);
    const lossy = {
      kind: 'lossy',
      mimetype: 'image/jpeg',
      quality: 80,
      force: true,
      lossless: 'image/png',
    } as const;
    const jpeg = cache.region(fb, 8, rect, lossy);
    expect(jpeg).not.toBe(first);
    fb.fill(0); // the RFB client keeps writing; the pending encode must not see it
    const { data } = await sharp((await first).data)
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect([...data.subarray(0, 3)]).toEqual([255, 255, 255]);
    expect((await jpeg).mimetype).toBe('image/jpeg');
    cache.invalidate();
    const second = cache.region(fb, 8, rect, exact);
    expect(second).not.toBe(first);
    const again = await sharp((await second).data)
      .raw()
      .toBuffer();
    expect([...again.subarray(0, 3)]).toEqual([0, 0, 0]);
  });
});
