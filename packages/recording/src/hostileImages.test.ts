// An image whose header says one size and whose data does not decode (a hostile or broken server):
// the draws a seek, a reference keyframe and the writer's rebuilt model leave out are chosen by
// images' headers (visibleDraws.ts), so such an image, taken as covering what is under it, would
// hide that. A browser draws nothing for it and keeps what is under it; so does every picture
// the recording gives — at every moment, with pixel keyframes and with reference keyframes, and
// after the writer built its model from the file for a mask.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GuacInstruction } from '@overlay-companion/guac';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecordingReader } from './reader.js';
import { noisyPng } from './testing/randomStreams.js';
import { record, sameRgb } from './testing/recordFrames.js';
import { imageStream, ins } from './testing/streams.js';
import { RecordingWriter } from './writer.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'oc-rec-hostile-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const T0 = 1_700_000_300_000;

async function frames(): Promise<{ t: number; instructions: GuacInstruction[] }[]> {
  const under = await noisyPng(80, 60, 1, 'rgb');
  // Opaque, 80×60 by its header, covering `under` exactly; its data is damaged.
  const broken = Buffer.from(await noisyPng(80, 60, 2, 'rgb'));
  broken[broken.indexOf('IDAT') + 6]! ^= 0xff;
  const dot = await noisyPng(8, 8, 3, 'rgb');
  return [
    { t: T0, instructions: [ins('size', 0, 80, 60), ...imageStream(1, 0, 70, 0, dot)] },
    // In one frame, so a seek from the keyframe before weighs both.
    {
      t: T0 + 100,
      instructions: [...imageStream(2, 0, 0, 0, under), ...imageStream(3, 0, 0, 0, broken)],
    },
    ...Array.from({ length: 6 }, (_, i) => ({
      t: T0 + 200 + i * 100,
      instructions: imageStream(4 + i, 0, i * 8, 50, dot),
    })),
  ];
}

async function expectEveryMoment(
  id: string,
  live: { t: number; picture: { width: number; height: number; rgba: Buffer } }[],
): Promise<void> {
  const reader = await RecordingReader.open(dir, id);
  expect(reader.keyframes.length).toBeGreaterThanOrEqual(2);
  for (const { t, picture } of live)
    expect(sameRgb(picture, await reader.pictureAt(t)), `at ${t - T0} ms`).toBe(0);
  let i = 0;
  for await (const frame of reader.frames(reader.keyframes.at(-1)!.t)) {
    const at = live.findIndex((l) => l.t === frame.t);
    if (at >= 0) expect(sameRgb(live[at]!.picture, frame.model.screen)).toBe(0);
    i++;
  }
  expect(i).toBeGreaterThan(0);
}

/** Keyframes every 150 ms: several in the few frames of a test. */
function newWriter(): Promise<RecordingWriter> {
  return RecordingWriter.create({ dir, keyframeIntervalMs: 150, maxKeyframeIntervalMs: 150 });
}

describe('an image whose header lies', () => {
  it('shows what is under it at every moment, through reference keyframes', async () => {
    const writer = await newWriter();
    const live = await record(writer, await frames());
    const summary = await writer.close();
    await expectEveryMoment(summary.id, live);
  });

  it('shows what is under it at every moment, through pixel keyframes (a mask in force)', async () => {
    const writer = await newWriter();
    // A mask off the picture: the writer keeps its model and writes pixel keyframes.
    writer.setMasks([{ x: 200, y: 200, width: 4, height: 4 }], T0);
    const live = await record(writer, await frames());
    const summary = await writer.close();
    await expectEveryMoment(summary.id, live);
  });

  it('the writer builds its model for a mask as the browser shows the picture', async () => {
    const writer = await newWriter();
    const mask = { x: 10, y: 10, width: 30, height: 20 };
    // A mask comes (the model is built from the file) and goes: the file then shows the
    // model's picture of what was under it.
    const live = await record(writer, [
      ...(await frames()).slice(0, 5),
      { t: T0 + 700, masks: [mask], instructions: [] },
      { t: T0 + 800, masks: [], instructions: [] },
    ]);
    const summary = await writer.close();
    const reader = await RecordingReader.open(dir, summary.id);
    const after = live.at(-1)!;
    expect(sameRgb(after.picture, await reader.pictureAt(after.t))).toBe(0);
  });
});
