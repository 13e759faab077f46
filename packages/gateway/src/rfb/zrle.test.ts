// ZRLE decoder against a small reference encoder written here from the spec: every
// sub-encoding, partial edge tiles, one zlib stream across rectangles, and hostile data.
import { constants, createDeflate } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { RfbError } from './errors.js';
import { Framebuffer } from './framebuffer.js';
import { ZrleDecoder } from './zrle.js';

type Mode = 'raw' | 'solid' | 'packed' | 'rle' | 'paletteRle';

/** A deflate stream flushed per rectangle, like a VNC server's. */
function deflater(): (data: Buffer) => Promise<Buffer> {
  const d = createDeflate();
  return (data) =>
    new Promise((resolve) => {
      const out: Buffer[] = [];
      const onData = (c: Buffer) => out.push(c);
      d.on('data', onData);
      d.write(data);
      d.flush(constants.Z_SYNC_FLUSH, () => {
        d.off('data', onData);
        resolve(Buffer.concat(out));
      });
    });
}

const cpixel = (c: number) => [c & 0xff, (c >> 8) & 0xff, (c >> 16) & 0xff];
function runLength(n: number): number[] {
  const out: number[] = [];
  let left = n - 1;
  while (left >= 255) {
    out.push(255);
    left -= 255;
  }
  out.push(left);
  return out;
}

/** Encodes one tile (colours as 0xBBGGRR) in the requested mode, falling back to raw. */
function encodeTile(px: number[], tw: number, mode: Mode): number[] {
  const palette = [...new Set(px)];
  if (mode === 'solid' && palette.length === 1) return [1, ...cpixel(palette[0]!)];
  if (mode === 'packed' && palette.length >= 2 && palette.length <= 16) {
    const bits = palette.length === 2 ? 1 : palette.length <= 4 ? 2 : 4;
    const out = [palette.length, ...palette.flatMap(cpixel)];
    for (let row = 0; row < px.length / tw; row++) {
      let byte = 0;
      let used = 0;
      for (let col = 0; col < tw; col++) {
        byte = (byte << bits) | palette.indexOf(px[row * tw + col]!);
        used += bits;
        if (used === 8) {
          out.push(byte);
          byte = 0;
          used = 0;
        }
      }
      if (used > 0) out.push(byte << (8 - used));
    }
    return out;
  }
  const runs: [number, number][] = [];
  for (const c of px) {
    const last = runs[runs.length - 1];
    if (last && last[0] === c) last[1]++;
    else runs.push([c, 1]);
  }
  if (mode === 'rle') return [128, ...runs.flatMap(([c, n]) => [...cpixel(c), ...runLength(n)])];
  if (mode === 'paletteRle' && palette.length >= 2 && palette.length <= 127) {
    return [
      128 + palette.length,
      ...palette.flatMap(cpixel),
      ...runs.flatMap(([c, n]) =>
        n === 1 ? [palette.indexOf(c)] : [palette.indexOf(c) | 128, ...runLength(n)],
      ),
    ];
  }
  return [0, ...px.flatMap(cpixel)];
}

function encodeRect(px: number[], w: number, h: number, modes: Mode[]): Buffer {
  const out: number[] = [];
  let t = 0;
  for (let ty = 0; ty < h; ty += 64) {
    for (let tx = 0; tx < w; tx += 64) {
      const tw = Math.min(64, w - tx);
      const th = Math.min(64, h - ty);
      const tile: number[] = [];
      for (let y = 0; y < th; y++)
        for (let x = 0; x < tw; x++) tile.push(px[(ty + y) * w + tx + x]!);
      out.push(...encodeTile(tile, tw, modes[t++ % modes.length]!));
    }
  }
  return Buffer.from(out);
}

function expectRect(
  fb: Framebuffer,
  px: number[],
  x0: number,
  y0: number,
  w: number,
  h: number,
): void {
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const o = ((y0 + y) * fb.width + x0 + x) * 4;
      const c = px[y * w + x]!;
      const got = [fb.buffer[o], fb.buffer[o + 1], fb.buffer[o + 2], fb.buffer[o + 3]];
      if (got.join() !== [...cpixel(c), 255].join())
        throw new Error(`pixel ${x},${y}: expected ${cpixel(c).join()} got ${got.join()}`);
    }
  }
}

const target = (fb: Framebuffer) => ({ pixels: fb.pixels, stride: fb.width });

describe('ZRLE decoder', () => {
  test('decodes every sub-encoding, edge tiles, and keeps one zlib stream across rectangles', async () => {
    const fb = new Framebuffer(200, 150);
    const zrle = new ZrleDecoder(1 << 24);
    const compress = deflater();
    const palette = [0x0000ff, 0x00ff00, 0xff0000, 0x123456, 0xabcdef];
    for (const [i, modes] of (
      [
        ['raw', 'solid', 'packed', 'rle'],
        ['paletteRle', 'packed', 'rle', 'raw'],
      ] as Mode[][]
    ).entries()) {
      const w = 130;
      const h = 70;
      // Blocks of colour so that RLE runs wrap rows and solid tiles occur.
      const px = Array.from(
        { length: w * h },
        (_, k) =>
          palette[
            (Math.floor((k % w) / 7) + Math.floor(k / w / 5) + i) %
              (k < 64 * w ? palette.length : 1)
          ]!,
      );
      await zrle.decode(
        await compress(encodeRect(px, w, h, modes)),
        10 + i * 60,
        5 + i * 70,
        w,
        h,
        target(fb),
      );
      expectRect(fb, px, 10 + i * 60, 5 + i * 70, w, h);
    }
    zrle.close();
  });

  test('property: any rectangle in any mix of sub-encodings decodes exactly', async () => {
    const modes: Mode[] = ['raw', 'solid', 'packed', 'rle', 'paletteRle'];
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 140 }),
        fc.integer({ min: 1, max: 140 }),
        fc.array(fc.integer({ min: 0, max: 0xffffff }), { minLength: 1, maxLength: 20 }),
        fc.array(fc.constantFrom(...modes), { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 1, max: 50 }),
        async (w, h, colours, chosen, stretch) => {
          const fb = new Framebuffer(150, 150);
          const zrle = new ZrleDecoder(1 << 24);
          const px = Array.from(
            { length: w * h },
            (_, k) => colours[Math.floor(k / stretch) % colours.length]!,
          );
          await zrle.decode(
            await deflater()(encodeRect(px, w, h, chosen)),
            150 - w,
            150 - h,
            w,
            h,
            target(fb),
          );
          expectRect(fb, px, 150 - w, 150 - h, w, h);
          zrle.close();
        },
      ),
      { numRuns: 150 },
    );
  });

  const hostile: [string, number[]][] = [
    ['an undefined sub-encoding', [17]],
    [
      'a run longer than the tile',
      [
        128, 1, 2, 3, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
        255, 255,
      ],
    ],
    ['a palette index beyond the palette', [130, 1, 1, 1, 2, 2, 2, 5]],
    ['a tile cut short', [0, 1, 2, 3]],
    ['a packed tile cut short', [2, 1, 1, 1, 2, 2, 2, 0xff]],
    ['bytes after the last tile', [1, 9, 9, 9, 0]],
  ];
  test.each(hostile)(
    'rejects %s with an RfbError and writes nothing outside the rectangle',
    async (_name, bytes) => {
      const fb = new Framebuffer(40, 40);
      const before = Buffer.from(fb.buffer);
      const zrle = new ZrleDecoder(1 << 24);
      const error = await zrle
        .decode(await deflater()(Buffer.from(bytes)), 8, 8, 16, 16, target(fb))
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RfbError);
      expect((error as RfbError).code).toBe('protocol');
      // Only pixels inside the 16x16 rectangle at (8,8) may have changed.
      for (let y = 0; y < 40; y++) {
        for (let x = 0; x < 40; x++) {
          if (x >= 8 && x < 24 && y >= 8 && y < 24) continue;
          expect(fb.buffer.readUInt32LE((y * 40 + x) * 4)).toBe(
            before.readUInt32LE((y * 40 + x) * 4),
          );
        }
      }
      zrle.close();
    },
  );

  test('rejects data that is not zlib, and every rectangle after it', async () => {
    const fb = new Framebuffer(16, 16);
    const zrle = new ZrleDecoder(1 << 24);
    await expect(
      zrle.decode(Buffer.from('this is not zlib at all'), 0, 0, 16, 16, target(fb)),
    ).rejects.toThrow(/does not inflate/);
    await expect(zrle.decode(Buffer.alloc(4), 0, 0, 16, 16, target(fb))).rejects.toBeInstanceOf(
      RfbError,
    );
    zrle.close();
  });

  test('refuses to inflate more than its limit (zip bomb)', async () => {
    const fb = new Framebuffer(64, 64);
    const zrle = new ZrleDecoder(100_000);
    const bomb = await deflater()(Buffer.alloc(5_000_000));
    await expect(zrle.decode(bomb, 0, 0, 64, 64, target(fb))).rejects.toThrow(/does not inflate/);
    zrle.close();
  });
});
