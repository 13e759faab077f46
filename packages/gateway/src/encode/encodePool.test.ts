// The encode pool's worker threads: every caller gets its own region back whichever worker
// finishes first, lossy requests give JPEG only where it fits (or always when forced), PNG and
// lossless WebP stay exact, and a task that fails fails alone.
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { EncodePool } from './encodePool.js';

const pool = new EncodePool(2);
afterAll(() => pool.close());

/** A width×height RGBA image of one colour with a few pixels marking `seed`. */
function marked(width: number, height: number, seed: number): ArrayBuffer {
  const pixels = new Uint8Array(width * height * 4).fill(255);
  for (let i = 0; i < 8; i++) {
    const o = ((i * 7 + seed) % (width * height)) * 4;
    pixels[o] = seed & 0xff;
    pixels[o + 1] = (seed >> 8) & 0xff;
    pixels[o + 2] = i;
  }
  return pixels.buffer;
}

function noise(width: number, height: number): ArrayBuffer {
  const pixels = new Uint8Array(width * height * 4);
  let state = 12345;
  for (let i = 0; i < pixels.length; i++) {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    pixels[i] = (i & 3) === 3 ? 255 : state >> 16;
  }
  return pixels.buffer;
}

async function decode(data: Buffer): Promise<Buffer> {
  return sharp(data).ensureAlpha().raw().toBuffer();
}

describe('EncodePool', () => {
  it('answers every caller with its own region, exact, whatever order workers finish in', async () => {
    // Indexed PNG (few colours), PNG and lossless WebP alike decode to exactly the pixels sent.
    // Sizes differ a lot so the workers finish out of submission order.
    const jobs = Array.from({ length: 24 }, (_, i) => {
      const width = i % 3 === 0 ? 600 : 16 + i;
      const height = i % 3 === 0 ? 400 : 8;
      const manyColours = i % 3 === 0; // the large ones, of png and webp alike
      const pixels = manyColours ? noise(width, height) : marked(width, height, i + 1);
      const expected = Buffer.from(pixels.slice(0));
      const mimetype = i % 2 === 0 ? 'image/png' : 'image/webp';
      return {
        expected,
        // Few colours go as an indexed PNG whatever lossless type was asked for.
        mimetype: manyColours ? mimetype : 'image/png',
        image: pool.encode(pixels, width, height, { kind: 'lossless', mimetype }),
      };
    });
    for (const job of jobs) {
      const image = await job.image;
      expect(image).toMatchObject({ mimetype: job.mimetype, lossy: false });
      expect((await decode(image.data)).equals(job.expected)).toBe(true);
    }
    expect(pool.inFlight).toBe(0);
  });

  it('sends noisy content lossy and text-like content lossless unless lossy is forced', async () => {
    const lossy = {
      kind: 'lossy',
      mimetype: 'image/jpeg',
      quality: 70,
      force: false,
      lossless: 'image/png',
    } as const;
    const photo = await pool.encode(noise(256, 128), 256, 128, lossy);
    expect(photo).toMatchObject({ mimetype: 'image/jpeg', lossy: true });
    const flat = await pool.encode(marked(256, 128, 3), 256, 128, lossy);
    expect(flat).toMatchObject({ mimetype: 'image/png', lossy: false });
    // Few colours: an indexed PNG even where the browser prefers lossless WebP (cheaper).
    const flatWebp = await pool.encode(marked(256, 128, 3), 256, 128, {
      ...lossy,
      lossless: 'image/webp',
    });
    expect(flatWebp).toMatchObject({ mimetype: 'image/png', lossy: false });
    const forced = await pool.encode(marked(256, 128, 3), 256, 128, { ...lossy, force: true });
    expect(forced).toMatchObject({ mimetype: 'image/jpeg', lossy: true });
    const webp = await pool.encode(noise(64, 64), 64, 64, {
      ...lossy,
      mimetype: 'image/webp',
    });
    expect(webp.mimetype).toBe('image/webp');
    expect((await sharp(webp.data).metadata()).format).toBe('webp');
  });

  it('fails a bad task alone and keeps serving', async () => {
    const bad = pool.encode(new ArrayBuffer(10), 100, 100, {
      kind: 'lossless',
      mimetype: 'image/png',
    });
    const good = pool.encode(marked(32, 32, 9), 32, 32, {
      kind: 'lossless',
      mimetype: 'image/png',
    });
    await expect(bad).rejects.toThrow(/encoding failed/);
    expect((await good).mimetype).toBe('image/png');
  });
});
