// Which bytes of a stored recording the picture at a moment needs — what RecordingReader's
// pictureAt() reads, so a seek into an hour-long recording in a bucket fetches one keyframe's
// PNGs and one keyframe interval of the picture file, not the whole recording:
// - the keyframe at or before `t` (the reader's own choice: the last one by time), its surfaces'
//   PNGs in `<id>.keys`;
// - the picture file from that keyframe's offset up to the next keyframe's offset. The next
//   keyframe is later than `t`, and its offset is right after the `sync` that ends its frame, so
//   that `sync` — where the reader stops — is inside the range; after the last keyframe, to the
//   end of the file;
// - for a reference keyframe, the byte ranges of the picture file it names (its draws, replayed
//   over its PNGs), those close together fetched as one.
import { IndexEntrySchema, type KeyframeEntry } from '@overlay-companion/recording';

/** A byte range: `end` exclusive, undefined for "to the end of the file". */
export interface ByteRange {
  start: number;
  end: number | undefined;
}

export interface PictureRanges {
  keys: ByteRange | undefined;
  recording: ByteRange;
  /** More of the picture file: a reference keyframe's draws (none for a pixel keyframe). */
  draws: ByteRange[];
}

/** Draws this close together are fetched in one request. */
const DRAWS_GAP = 256 * 1024;

/** The keyframes listed in an index file's text (lines that do not parse are skipped). */
export function keyframesOf(indexText: string): KeyframeEntry[] {
  const keyframes: KeyframeEntry[] = [];
  for (const line of indexText.split('\n')) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    const parsed = IndexEntrySchema.safeParse(value);
    if (parsed.success && parsed.data.type === 'keyframe') keyframes.push(parsed.data);
  }
  // The reader's order (a stable sort by time), so both pick the same keyframe.
  return keyframes.sort((a, b) => a.t - b.t);
}

export function pictureRanges(keyframes: readonly KeyframeEntry[], t: number): PictureRanges {
  let at = -1;
  for (let i = 0; i < keyframes.length; i++) if ((keyframes[i] as KeyframeEntry).t <= t) at = i;
  const keyframe = keyframes[at];
  const next = keyframes[at + 1];
  const surfaces = keyframe?.surfaces.filter((s) => s.keysLength > 0) ?? [];
  return {
    keys:
      surfaces.length === 0
        ? undefined
        : {
            start: Math.min(...surfaces.map((s) => s.keysOffset)),
            end: Math.max(...surfaces.map((s) => s.keysOffset + s.keysLength)),
          },
    recording: { start: keyframe?.offset ?? 0, end: next?.offset },
    draws: coalesced(keyframe?.draws ?? []),
  };
}

function coalesced(draws: readonly (readonly [number, number])[]): ByteRange[] {
  const out: { start: number; end: number }[] = [];
  for (const [start, end] of [...draws].sort((a, b) => a[0] - b[0])) {
    const last = out.at(-1);
    if (last !== undefined && start - last.end <= DRAWS_GAP) last.end = Math.max(last.end, end);
    else out.push({ start, end });
  }
  return out;
}
