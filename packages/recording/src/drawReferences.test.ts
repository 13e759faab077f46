// Reference keyframes (drawReferences.ts): for random streams (visibleDraws.test.ts's), the byte
// ranges a keyframe names, drawn in order over its base, make every surface exactly what drawing
// the whole file makes it — at several keyframes in a row, each weighing the draws the one
// before kept and those since — and leave most of the file out; the model rebuilt when a mask
// appears is exact too, also with an image open across that moment. An image whose header says
// one size and that does not decode makes the rebuild draw the file in full, as the browser does.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeInstruction, type GuacInstruction } from '@overlay-companion/guac';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DisplayModel } from './displayModel.js';
import { DrawReferences } from './drawReferences.js';
import { instructionsIn } from './fileTail.js';
import type { Surface } from './layers.js';
import { applyAll, expectSameSurfaces, noisyPng, randomStream } from './testing/randomStreams.js';
import { imageStream, ins } from './testing/streams.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'oc-rec-refs-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function copies(surfaces: ReadonlyMap<number, Surface>): Map<number, Surface> {
  return new Map(
    [...surfaces].map(([i, s]) => [
      i,
      { width: s.width, height: s.height, rgba: Buffer.from(s.rgba) },
    ]),
  );
}

/** The stretch written as a file at `path` from offset `base`, told to `references` as it goes. */
async function write(
  path: string,
  references: DrawReferences,
  stretch: readonly GuacInstruction[],
  base: number,
): Promise<number[]> {
  const ends: number[] = [];
  let text = ' '.repeat(base);
  let offset = base;
  for (const instruction of stretch) {
    const encoded = encodeInstruction(instruction.opcode, ...instruction.args);
    references.written(instruction, offset, offset + Buffer.byteLength(encoded));
    offset += Buffer.byteLength(encoded);
    text += encoded;
    ends.push(offset);
  }
  await writeFile(path, text);
  return ends;
}

describe('reference keyframes', () => {
  it.each([1, 2, 3, 4, 5, 6, 44])(
    'name draws that rebuild every surface exactly, keyframe after keyframe (seed %i)',
    async (seed) => {
      const { stream, rnd } = await randomStream(seed);
      const start = 80 + rnd(200);
      const base = new DisplayModel();
      await applyAll(base, stream.slice(0, start));
      const path = join(dir, `random-${seed}.guac`);
      const origin = { surfaces: copies(base.surfaces), entries: [], offset: 1000 };
      const stretch = stream.slice(start);
      const truth = new DisplayModel();
      truth.reset(base.surfaces);
      // Keyframes at three moments: each weighs what the one before kept and what came since.
      const cuts = [Math.floor(stretch.length / 3), Math.floor((2 * stretch.length) / 3)];
      const rebuilt = new DisplayModel();
      let from = 0;
      let total = 0;
      let named = 0;
      const all = new DrawReferences(origin, path);
      const ends = await write(path, all, stretch, 1000);
      const partial = new DrawReferences(origin, path);
      for (const cut of [...cuts, stretch.length]) {
        for (let i = from; i < cut; i++) {
          const encoded = encodeInstruction(stretch[i]!.opcode, ...stretch[i]!.args);
          partial.written(stretch[i]!, ends[i]! - Buffer.byteLength(encoded), ends[i]!);
        }
        await applyAll(truth, stretch.slice(from, cut));
        from = cut;
        const referenced = partial.reference()!;
        rebuilt.reset(origin.surfaces);
        await applyAll(rebuilt, await instructionsIn(path, referenced.draws));
        expectSameSurfaces(truth, rebuilt);
        total = ends[cut - 1]! - 1000;
        named = referenced.bytes;
      }
      // Random streams overwrite a lot: the last keyframe names less than the file holds.
      expect(named).toBeLessThan(total);
      // The model rebuilt for a mask: the same.
      const model = new DisplayModel();
      await all.rebuild(model, 1000 + total);
      expectSameSurfaces(truth, model);
    },
  );

  it('rebuild keeps an image open across the moment, and draws in full when an image will not decode', async () => {
    const cover = await noisyPng(40, 40, 7, 'rgb');
    const under = await noisyPng(40, 40, 8, 'rgb');
    const broken = Buffer.from(cover);
    broken[broken.indexOf('IDAT') + 6]! ^= 0xff;
    const open = imageStream(5, 0, 0, 0, cover);
    const stretch = [
      ins('size', 0, 40, 40),
      ...imageStream(1, 0, 0, 0, under),
      // The header says 40×40, opaque, covering `under`; the data does not decode.
      ...imageStream(2, 0, 0, 0, broken),
      ...open.slice(0, -1),
    ];
    const path = join(dir, 'hostile.guac');
    const references = new DrawReferences({ surfaces: new Map(), entries: [], offset: 0 }, path);
    const ends = await write(path, references, stretch, 0);
    const truth = new DisplayModel();
    await applyAll(truth, stretch);
    const model = new DisplayModel();
    await references.rebuild(model, ends.at(-1)!);
    expectSameSurfaces(truth, model);
    // What a browser shows: `under` (the broken image draws nothing) ...
    expect(model.screen.rgba.equals(Buffer.alloc(40 * 40 * 4))).toBe(false);
    // ... and the open image's end, arriving live, draws it.
    await applyAll(truth, open.slice(-1));
    await applyAll(model, open.slice(-1));
    expectSameSurfaces(truth, model);
  });
});
