// The display model on the drawing guacd 1.6 and the gateway send: images with SRC and OVER
// (alpha blended), buffers that grow to what is drawn into them, copies and `transfer` raster
// operations, guacd's clearing fills (ROUT, RATOP), `dispose`, clipping at every edge, and what
// it ignores (unknown opcodes, absurd sizes, undecodable images).
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { DisplayModel, withoutAlpha } from './displayModel.js';
import { imageStream, ins, pixelAt, solidPng } from './testing/streams.js';

async function apply(model: DisplayModel, instructions: ReturnType<typeof ins>[]): Promise<void> {
  for (const i of instructions) await model.apply(i);
}

const halfTransparentRed = (w: number, h: number): Promise<Buffer> =>
  sharp({
    create: { width: w, height: h, channels: 4, background: { r: 255, g: 0, b: 0, alpha: 0.5 } },
  })
    .png()
    .toBuffer();

describe('DisplayModel', () => {
  it('draws OVER with alpha blending and SRC as a replacement', async () => {
    const model = new DisplayModel();
    await apply(model, [
      ins('size', 0, 10, 10),
      ...imageStream(1, 0, 0, 0, await solidPng(10, 10, [0, 0, 255])),
    ]);
    await apply(model, imageStream(2, 0, 0, 0, await halfTransparentRed(5, 5)));
    expect(pixelAt(model.screen, 1, 1)).toBe('80007f');
    expect(pixelAt(model.screen, 7, 7)).toBe('0000ff');
    // SRC into a buffer keeps the transparency (the cursor's image, as the gateway sends it).
    await apply(model, [ins('size', -1, 5, 5), ins('img', 3, 12, -1, 'image/png', 0, 0)]);
    const png = await halfTransparentRed(5, 5);
    await apply(model, [ins('blob', 3, png.toString('base64')), ins('end', 3)]);
    expect(model.surfaces.get(-1)?.rgba.subarray(0, 4)).toEqual(Buffer.from([255, 0, 0, 128]));
  });

  it('grows buffers to what is drawn into them, copies between surfaces, and reports layer 0 changes', async () => {
    const model = new DisplayModel();
    await apply(model, [
      ins('size', 0, 100, 50),
      ...imageStream(1, 0, 0, 0, await solidPng(100, 50, [10, 20, 30])),
    ]);
    model.takeDirty();
    await apply(model, [
      ins('rect', 0, 10, 10, 5, 5),
      ins('cfill', 14, 0, 200, 100, 0, 255),
      ins('copy', 0, 0, 0, 20, 20, 14, -7, 50, 40), // into a buffer never sized
    ]);
    expect([model.surfaces.get(-7)?.width, model.surfaces.get(-7)?.height]).toEqual([70, 60]);
    await apply(model, [ins('copy', -7, 60, 50, 5, 5, 14, 0, 90, 40)]);
    expect(pixelAt(model.screen, 92, 42)).toBe('c86400');
    expect(model.takeDirty()).toEqual({ x: 10, y: 10, width: 85, height: 35 });
    expect(model.takeDirty()).toBeUndefined();
    // Copies reaching past either edge are clipped, not thrown.
    await apply(model, [ins('copy', 0, 90, 40, 50, 50, 14, 0, -20, -20)]);
    expect(pixelAt(model.screen, 0, 0)).toBe('0a141e');
  });

  it("applies transfer's raster operations and guacd's clearing fills", async () => {
    const model = new DisplayModel();
    await apply(model, [
      ins('size', 0, 4, 1),
      ins('rect', 0, 0, 0, 4, 1),
      ins('cfill', 14, 0, 0xf0, 0x0f, 0xff, 255),
      ins('size', -1, 4, 1),
      ins('rect', -1, 0, 0, 4, 1),
      ins('cfill', 14, -1, 0xff, 0xff, 0x00, 255),
      ins('transfer', -1, 0, 0, 1, 1, 0x6, 0, 0, 0), // XOR
      ins('transfer', -1, 0, 0, 1, 1, 0x3, 0, 1, 0), // SRC
      ins('transfer', -1, 0, 0, 1, 1, 0x5, 0, 2, 0), // DEST
      ins('transfer', -1, 0, 0, 1, 1, 0xc, 0, 3, 0), // NOT SRC
    ]);
    expect([0, 1, 2, 3].map((x) => pixelAt(model.screen, x, 0))).toEqual([
      '0ff0ff',
      'ffff00',
      'f00fff',
      '0000ff',
    ]);
    // guacd clears a non-opaque layer before redrawing it: ROUT with an opaque colour, or RATOP
    // with alpha 0, both leave transparent pixels.
    await apply(model, [ins('rect', -1, 0, 0, 2, 1), ins('cfill', 2, -1, 0, 0, 0, 255)]);
    await apply(model, [ins('rect', -1, 2, 0, 1, 1), ins('cfill', 9, -1, 0, 0, 0, 0)]);
    expect(model.surfaces.get(-1)?.rgba).toEqual(
      Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 0, 255]),
    );
  });

  it('ignores what it does not draw: unknown opcodes, absurd sizes, broken images; dispose forgets', async () => {
    const model = new DisplayModel();
    await apply(model, [
      ins('size', 0, 8, 8),
      ins('frobnicate', 1, 2, 3),
      ins('cursor', 0, 0, -1, 0, 0, 1, 1),
      ins('size', 0, 1_000_000, 1_000_000),
      ins('img', 4, 14, 0, 'image/png', 0, 0),
      ins('blob', 4, Buffer.from('not a png').toString('base64')),
      ins('end', 4),
      ins('size', -3, 2, 2),
      ins('dispose', -3),
    ]);
    expect([model.screen.width, model.screen.height]).toEqual([8, 8]);
    expect(model.surfaces.has(-3)).toBe(false);
  });

  it('skips the alpha scan only for images whose bytes say they have no alpha', async () => {
    const rgb = await solidPng(4, 4, [1, 2, 3]);
    const rgba = await halfTransparentRed(4, 4);
    const jpeg = await sharp(rgb).jpeg().toBuffer();
    expect(withoutAlpha('image/png', rgb)).toBe(true);
    expect(withoutAlpha('image/jpeg', jpeg)).toBe(true);
    expect(withoutAlpha('image/png', rgba)).toBe(false);
    // A mimetype that lies about the bytes does not skip the scan.
    expect(withoutAlpha('image/jpeg', rgba)).toBe(false);
    expect(withoutAlpha('image/png', jpeg)).toBe(false);
    expect(withoutAlpha('image/webp', rgb)).toBe(false);
    // An RGB PNG with a transparent colour (a tRNS chunk before its data) may have alpha.
    const ihdrEnd = 8 + 12 + rgb.readUInt32BE(8);
    const trns = Buffer.from([0, 0, 0, 6, ...Buffer.from('tRNS'), 0, 1, 0, 2, 0, 3, 0, 0, 0, 0]);
    const keyed = Buffer.concat([rgb.subarray(0, ihdrEnd), trns, rgb.subarray(ihdrEnd)]);
    expect(withoutAlpha('image/png', keyed)).toBe(false);
    expect(withoutAlpha('image/png', rgb.subarray(0, 40))).toBe(false);

    // A translucent PNG sent as image/jpeg still blends.
    const model = new DisplayModel();
    await apply(model, [
      ins('size', 0, 10, 10),
      ...imageStream(1, 0, 0, 0, await solidPng(10, 10, [0, 0, 255])),
    ]);
    const lying = imageStream(2, 0, 0, 0, await halfTransparentRed(5, 5));
    lying[0] = ins('img', 2, 14, 0, 'image/jpeg', 0, 0);
    await apply(model, lying);
    expect(pixelAt(model.screen, 1, 1)).toBe('80007f');
  });
});
