// The recording's index (`<id>.index.jsonl`), read by the reader to seek and to say where the
// recording has gaps. One JSON line per entry, times in epoch milliseconds (the recording's
// `sync` clock):
// - `start`: the recording began;
// - `keyframe`: at time `t`, the picture of every surface (layer 0 with the masks of the moment
//   painted black, and the buffers a replay may copy from) as PNGs stored in `<id>.keys`, and the
//   byte `offset` in the recording right after that frame's `sync` — replay continues from there.
//   A reference keyframe (version 2; written while no mask is in force and no gap is open) also
//   has `draws`: byte ranges of the recording, before `offset`, whose instructions drawn in order
//   over its PNGs (none at the recording's start, else the picture at offset `base`) make the
//   picture at `t` (drawReferences.ts); were the ranges' images to decode to other sizes than
//   their headers say, the picture is the PNGs and the recording from `base` on, drawn in full;
// - `gap`: no picture from `from` to `to` (`to` null while the gap is still open; the closing
//   line for the same `from` comes later);
// - `end`: the recording was closed at `t` with `bytes` in the file.
import { join } from 'node:path';
import { z } from 'zod';

export const INDEX_VERSION = 2;

const surfaceEntry = z.object({
  index: z.number().int(),
  width: z.number().int().nonnegative(),
  height: z.number().int().nonnegative(),
  /** Where its PNG is in `<id>.keys`. */
  keysOffset: z.number().int().nonnegative(),
  keysLength: z.number().int().nonnegative(),
});

export const IndexEntrySchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('start'), version: z.number().int(), t: z.number() }),
  z.object({
    type: z.literal('keyframe'),
    t: z.number(),
    offset: z.number().int().nonnegative(),
    surfaces: z.array(surfaceEntry),
    base: z.number().int().nonnegative().optional(),
    draws: z
      .array(z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()]))
      .optional(),
  }),
  z.object({
    type: z.literal('gap'),
    from: z.number(),
    to: z.number().nullable(),
    reason: z.string(),
  }),
  z.object({ type: z.literal('end'), t: z.number(), bytes: z.number().int().nonnegative() }),
]);

export type IndexEntry = z.infer<typeof IndexEntrySchema>;
export type KeyframeEntry = Extract<IndexEntry, { type: 'keyframe' }>;
export type SurfaceEntry = z.infer<typeof surfaceEntry>;

/** A stretch without picture; `to` is undefined when the recording ended inside it. */
export interface Gap {
  from: number;
  to: number | undefined;
  reason: string;
}

/** The files of recording `id` in `dir`. Names carry the random id only. */
export function recordingPaths(
  dir: string,
  id: string,
): { recording: string; index: string; keys: string; events: string } {
  const base = join(dir, id);
  return {
    recording: `${base}.guac`,
    index: `${base}.index.jsonl`,
    keys: `${base}.keys`,
    events: `${base}.events.jsonl`,
  };
}
