// The synchronous PNG encoders decode, with sharp, to exactly the pixels they were given.
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { encodeIndexedPngSync, encodePngSync } from './pngSync.js';

/** Tight RGBA of `width`×`height` whose pixel i has colour colourOf(i), opaque. */
function picture(width: number, height: number, colourOf: (i: number) => number): Uint8Array {
  const rgba = new Uint8Array(width * height * 4);
  for (let i = 0; i < width * height; i++) {
    const c = colourOf(i);
    rgba.set([c & 0xff, (c >>> 8) & 0xff, (c >>> 16) & 0xff, 255], i * 4);
  }
  return rgba;
}

async function decoded(png: Buffer): Promise<Uint8Array> {
  return new Uint8Array(await sharp(png).ensureAlpha().raw().toBuffer());
}

describe('encodeIndexedPngSync', () => {
  it('keeps every pixel of a picture of 256 colours, in runs and alone', async () => {
    const colours = Array.from({ length: 256 }, (_, j) => (j * 0x10204b) & 0xffffff);
    const rgba = picture(300, 37, (i) => colours[(i % 7 === 0 ? i : i >> 4) % 256]!);
    const png = encodeIndexedPngSync(rgba, 300, 37);
    expect(png).toBeDefined();
    expect(await decoded(png!)).toEqual(rgba);
  });

  it('gives up on the 257th colour, for the caller to encode another way', () => {
    expect(
      encodeIndexedPngSync(
        picture(257, 1, (i) => i * 3),
        257,
        1,
      ),
    ).toBeUndefined();
  });

  it('starts each picture with an empty palette', async () => {
    encodeIndexedPngSync(
      picture(200, 1, (i) => i),
      200,
      1,
    );
    const rgba = picture(64, 64, (i) => (i % 3) * 0x404040);
    expect(await decoded(encodeIndexedPngSync(rgba, 64, 64)!)).toEqual(rgba);
  });
});

describe('encodePngSync', () => {
  it('keeps every pixel', async () => {
    const rgba = picture(70, 33, (i) => (i * 0x9e3779b1) & 0xffffff);
    expect(await decoded(encodePngSync(rgba, 70, 33))).toEqual(rgba);
  });
});
