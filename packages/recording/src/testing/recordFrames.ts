// Test helpers for the writer: frames fed to a RecordingWriter and to a live model (the picture a
// client drew), and how many pixels of two pictures differ in colour.
import type { GuacInstruction } from '@overlay-companion/guac';
import { expect } from 'vitest';
import { DisplayModel } from '../displayModel.js';
import type { Rect, Surface } from '../layers.js';
import type { RecordingWriter } from '../writer.js';
import { ins } from './streams.js';

/** Feeds frames to a writer and to a live model; returns the live picture after each frame. */
export async function record(
  writer: RecordingWriter,
  frames: { t: number; instructions: GuacInstruction[]; masks?: Rect[] }[],
): Promise<{ t: number; picture: Surface }[]> {
  const live = new DisplayModel();
  const out: { t: number; picture: Surface }[] = [];
  for (const frame of frames) {
    if (frame.masks) writer.setMasks(frame.masks, frame.t);
    for (const instruction of [...frame.instructions, ins('sync', frame.t, 1)]) {
      writer.feed(instruction, frame.t);
      await live.apply(instruction);
    }
    const screen = live.screen;
    out.push({ t: frame.t, picture: { ...screen, rgba: Buffer.from(screen.rgba) } });
  }
  return out;
}

export function sameRgb(a: Surface, b: Surface): number {
  expect([a.width, a.height]).toEqual([b.width, b.height]);
  let diff = 0;
  for (let o = 0; o < a.rgba.length; o += 4)
    if (
      a.rgba[o] !== b.rgba[o] ||
      a.rgba[o + 1] !== b.rgba[o + 1] ||
      a.rgba[o + 2] !== b.rgba[o + 2]
    )
      diff++;
  return diff;
}
