// The file-following model draws only what is still visible at a stretch's end (visibleDraws.ts):
// for random streams of images (opaque, palette, translucent; SRC and OVER), copies and moves
// through buffers (SRC and OVER, between surfaces and within one, clipped at every edge), fills
// (opaque, translucent, clearing), transfers, resizes and disposals, a model that skips what
// invisibleDraws names ends with every surface equal, pixel for pixel, to a model that drew
// everything — and the draw observer (the mask taint's source) hears the same calls. A heavy
// scroll (new rows drawn at the bottom, the rest moved up through a buffer, as our gateway
// sends it) skips nearly every image.
import sharp from 'sharp';
import type { GuacInstruction } from '@overlay-companion/guac';
import { describe, expect, it } from 'vitest';
import { DisplayModel, type DrawObserver } from './displayModel.js';
import { imageSize } from './imageHeader.js';
import { applyAll, expectSameSurfaces, noisyPng, randomStream } from './testing/randomStreams.js';
import { imageStream, ins } from './testing/streams.js';
import { invisibleDraws } from './visibleDraws.js';

function recorder(): { observer: DrawObserver; calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    observer: {
      copied: (src, from, dst, to) =>
        calls.push(`copied ${src} ${JSON.stringify(from)} ${dst} ${JSON.stringify(to)}`),
      drawn: (layer, rect) => calls.push(`drawn ${layer} ${JSON.stringify(rect)}`),
      disposed: (layer) => calls.push(`disposed ${layer}`),
    },
  };
}

async function applyVisible(
  model: DisplayModel,
  stream: readonly GuacInstruction[],
): Promise<number> {
  const skips = invisibleDraws(stream, model.surfaces);
  for (let at = 0; at < stream.length; at++) {
    const size = skips.get(at);
    const pending = size === undefined ? model.apply(stream[at]!) : model.skip(stream[at]!, size);
    if (pending) await pending;
  }
  return skips.size;
}

describe('drawing only what is still visible', () => {
  it.each([1, 2, 3, 4, 5, 6])(
    'ends equal to drawing everything: 600 random instructions (seed %i)',
    async (seed) => {
      const { stream, rnd } = await randomStream(seed);
      // The model is exact at the start of the stretch (a keyframe or the last catch-up).
      const start = 80 + rnd(200);
      const a = recorder();
      const b = recorder();
      const all = new DisplayModel(a.observer);
      const visible = new DisplayModel(b.observer);
      await applyAll(all, stream.slice(0, start));
      await applyAll(visible, stream.slice(0, start));
      a.calls.length = 0;
      b.calls.length = 0;
      await applyAll(all, stream.slice(start));
      const skipped = await applyVisible(visible, stream.slice(start));
      expectSameSurfaces(all, visible);
      expect(b.calls).toEqual(a.calls);
      // Random streams overwrite a lot; the test means nothing if nothing was skipped.
      expect(skipped).toBeGreaterThan(10);
    },
  );

  it('skips nearly every image of a heavy scroll (rows through a buffer, as our gateway sends them)', async () => {
    const rows = await Promise.all(
      Array.from({ length: 8 }, (_, i) => noisyPng(300, 20, i + 1, 'palette')),
    );
    const stream: GuacInstruction[] = [];
    for (let frame = 0; frame < 60; frame++) {
      stream.push(ins('copy', 0, 0, 20, 300, 180, 14, -2, 0, 20));
      stream.push(ins('copy', -2, 0, 20, 300, 180, 14, 0, 0, 0));
      stream.push(...imageStream(frame + 1, 0, 0, 180, rows[frame % rows.length]!));
    }
    const start = [
      ins('size', 0, 300, 200),
      ins('size', -2, 300, 200),
      ...imageStream(99, 0, 0, 0, await noisyPng(300, 200, 9, 'rgb')),
    ];
    const all = new DisplayModel();
    const visible = new DisplayModel();
    await applyAll(all, [...start, ...stream]);
    await applyAll(visible, start);
    const skips = invisibleDraws(stream, visible.surfaces);
    const images = [...skips.keys()].filter((at) => stream[at]!.opcode === 'end').length;
    // The screen holds 10 rows: the last 10 images show, the 50 before are scrolled away.
    expect(images).toBe(50);
    await applyVisible(visible, stream);
    expectSameSurfaces(all, visible);
  });

  it('keeps the rows a scroll within one surface moves (guacd copies layer 0 onto itself)', async () => {
    // Each frame moves the screen up 20 rows in place (source and destination overlap) and
    // draws a new row at the bottom: a row stays visible while a later copy still carries it,
    // which the analysis can only know from the needed pixels as they were before the copy
    // replaced them.
    const rows = await Promise.all(
      Array.from({ length: 8 }, (_, i) => noisyPng(300, 20, i + 11, 'palette')),
    );
    const stream: GuacInstruction[] = [];
    for (let frame = 0; frame < 30; frame++) {
      stream.push(ins('copy', 0, 0, 20, 300, 180, 12, 0, 0, 0));
      stream.push(...imageStream(frame + 1, 0, 0, 180, rows[frame % rows.length]!));
    }
    const start = [
      ins('size', 0, 300, 200),
      ...imageStream(99, 0, 0, 0, await noisyPng(300, 200, 19, 'rgb')),
    ];
    const all = new DisplayModel();
    const visible = new DisplayModel();
    await applyAll(all, [...start, ...stream]);
    await applyAll(visible, start);
    const skips = invisibleDraws(stream, visible.surfaces);
    expect([...skips.keys()].filter((at) => stream[at]!.opcode === 'end').length).toBe(20);
    await applyVisible(visible, stream);
    expectSameSurfaces(all, visible);
  });

  it('keeps what a translucent image is blended over, and skips what an opaque one covers', async () => {
    const under = imageStream(1, 0, 0, 0, await noisyPng(20, 20, 3, 'rgb'));
    const translucent = imageStream(2, 0, 0, 0, await noisyPng(20, 20, 4, 'rgba'));
    const cover = imageStream(3, 0, 0, 0, await noisyPng(20, 20, 5, 'palette'));
    const model = new DisplayModel();
    await applyAll(model, [ins('size', 0, 20, 20)]);
    const blended = [...under, ...translucent];
    expect(invisibleDraws(blended, model.surfaces).size).toBe(0);
    const covered = [...under, ...cover];
    expect([...invisibleDraws(covered, model.surfaces).keys()]).toEqual([under.length - 1]);
  });

  it('reads sizes from PNG, JPEG and WebP headers, and nothing from other bytes', async () => {
    const base = sharp({ create: { width: 37, height: 21, channels: 4, background: '#ff000080' } });
    for (const [mime, bytes] of [
      ['image/png', await base.clone().png().toBuffer()],
      ['image/jpeg', await base.clone().jpeg().toBuffer()],
      ['image/webp', await base.clone().webp().toBuffer()],
      ['image/webp', await base.clone().webp({ lossless: true }).toBuffer()],
    ] as const)
      expect(imageSize(mime, bytes)).toEqual({ width: 37, height: 21 });
    const png = await base.clone().png().toBuffer();
    expect(imageSize('image/jpeg', png)).toBeUndefined();
    expect(imageSize('image/png', Buffer.from('not an image'))).toBeUndefined();
  });
});
