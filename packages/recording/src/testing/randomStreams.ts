// Random server→client streams for the visible-draw analysis' tests: images (opaque, palette,
// translucent PNG, JPEG; SRC and OVER), copies and moves through buffers (SRC and OVER, between
// surfaces and within one, clipped at every edge), fills (opaque, translucent, clearing),
// transfers, resizes and disposals, on layers 0 and 1 and buffers -1 and -2; and the models they
// make, drawn and compared.
import sharp from 'sharp';
import type { GuacInstruction } from '@overlay-companion/guac';
import { expect } from 'vitest';
import type { DisplayModel } from '../displayModel.js';
import { imageStream, ins, solidPng } from './streams.js';

/** Every instruction of `stream` applied to `model`, in order. */
export async function applyAll(
  model: DisplayModel,
  stream: readonly GuacInstruction[],
): Promise<void> {
  for (const instruction of stream) {
    const pending = model.apply(instruction);
    if (pending) await pending;
  }
}

/** Both models hold the same surfaces, pixel for pixel. */
export function expectSameSurfaces(a: DisplayModel, b: DisplayModel): void {
  expect([...b.surfaces.keys()].sort()).toEqual([...a.surfaces.keys()].sort());
  for (const [index, surface] of a.surfaces) {
    const other = b.surfaces.get(index)!;
    expect([index, other.width, other.height]).toEqual([index, surface.width, surface.height]);
    // One assertion per surface (a mismatch names the first differing byte).
    const diff = surface.rgba.findIndex((v, i) => other.rgba[i] !== v);
    expect({ index, diff }).toEqual({ index, diff: -1 });
  }
}

export async function noisyPng(
  width: number,
  height: number,
  seed: number,
  kind: 'rgb' | 'palette' | 'rgba',
): Promise<Buffer> {
  const channels = kind === 'rgba' ? 4 : 3;
  const raw = Buffer.alloc(width * height * channels);
  let state = seed;
  for (let i = 0; i < raw.length; i++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    raw[i] = kind === 'palette' ? (state >>> 30) * 85 : state >>> 24;
  }
  const image = sharp(raw, { raw: { width, height, channels } });
  return (kind === 'palette' ? image.png({ palette: true, colours: 4 }) : image.png()).toBuffer();
}

/** 600 or so random instructions (seeded), and the seeded generator, to go on with. */
export async function randomStream(
  seed: number,
): Promise<{ stream: GuacInstruction[]; rnd: (n: number) => number }> {
  let state = seed * 7919;
  const rnd = (n: number): number => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return (state >>> 8) % n;
  };
  const pngs = await Promise.all([
    noisyPng(40, 24, seed, 'rgb'),
    noisyPng(64, 10, seed + 1, 'palette'),
    noisyPng(20, 20, seed + 2, 'rgba'),
    noisyPng(90, 50, seed + 3, 'rgb'),
    solidPng(30, 30, [seed * 20, 0, 255]),
    sharp({ create: { width: 16, height: 12, channels: 3, background: '#123456' } })
      .jpeg()
      .toBuffer(),
  ]);
  const mimes = ['image/png', 'image/png', 'image/png', 'image/png', 'image/png', 'image/jpeg'];
  const layers = [0, 0, 0, -1, -2, 1];
  const coord = (): number => rnd(140) - 20;
  const stream: GuacInstruction[] = [ins('size', 0, 100, 80), ins('size', -2, 100, 80)];
  let streamIndex = 1;
  while (stream.length < 600) {
    const pick = rnd(100);
    const layer = layers[rnd(layers.length)]!;
    if (pick < 35) {
      const which = rnd(pngs.length);
      const image = imageStream(streamIndex++, layer, coord(), coord(), pngs[which]!);
      image[0] = ins(
        'img',
        streamIndex - 1,
        rnd(3) === 0 ? 12 : 14,
        layer,
        mimes[which]!,
        coord(),
        coord(),
      );
      stream.push(...image);
    } else if (pick < 75) {
      const src = layers[rnd(layers.length)]!;
      const mask = rnd(3) === 0 ? 12 : 14;
      stream.push(
        ins(
          rnd(15) === 0 ? 'transfer' : 'copy',
          src,
          coord(),
          coord(),
          rnd(90),
          rnd(70),
          rnd(15) === 0 ? 6 : mask,
          layer,
          coord(),
          coord(),
        ),
      );
    } else if (pick < 90) {
      const rects = 1 + rnd(3);
      for (let r = 0; r < rects; r++)
        stream.push(ins('rect', layer, coord(), coord(), rnd(50), rnd(40)));
      const [mask, alpha] = [
        [14, 255],
        [14, 128],
        [2, 255],
        [9, 0],
        [12, 90],
      ][rnd(5)]!;
      stream.push(ins('cfill', mask!, layer, rnd(256), rnd(256), rnd(256), alpha!));
    } else if (pick < 95) {
      stream.push(ins('size', layer, 40 + rnd(100), 30 + rnd(80)));
    } else if (pick < 97) {
      stream.push(ins('dispose', layers[3 + rnd(3)]!));
    }
  }
  return { stream, rnd };
}
