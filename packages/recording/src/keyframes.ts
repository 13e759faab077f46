// The recording's keyframes, for fast seeking: when one is due, and writing it. A pixel keyframe
// (written while the writer keeps its model current: a mask in force, after a gap, when following
// the file begins) is every surface of the model as a PNG in `<id>.keys` (layer 0 with the masks
// in force painted black, other buffers with the pixels they copied from under a mask painted
// black); a reference keyframe (while the file holds exactly the server's drawing) is the byte
// ranges of the draws that make the picture over a pixel keyframe's (drawReferences.ts). Either
// becomes a `keyframe` line in the index written only once its PNGs and the recording's bytes up
// to its offset are on disk (a seek never lands on a promise). The rule: at the first frame end at
// least `keyframeIntervalMs` after the last keyframe once the recording has grown by half as many
// bytes as that keyframe takes to draw (a seek then replays at most about half a keyframe's worth
// of the file on top of it), and in any case after `maxKeyframeIntervalMs`; an idle screen needs
// none (a seek replays the few frames since the last one).
import type { BoundedFile } from './boundedFile.js';
import type { DisplayModel } from './displayModel.js';
import { encodePng, maskedRegion } from './frames.js';
import type { ByteRange } from './fileTail.js';
import type { IndexEntry, SurfaceEntry } from './indexFormat.js';
import type { Rect, Surface } from './layers.js';

export interface KeyframeOptions {
  keyframeIntervalMs: number;
  maxKeyframeIntervalMs: number;
  /** The keyframes' PNGs. */
  keys: BoundedFile;
  /** The recording itself (a keyframe's offset must be on disk before the index names it). */
  recording: BoundedFile;
  index: (entry: IndexEntry) => void;
  /** After each keyframe's PNGs are accepted (the writer reports its files' size). */
  written: () => void;
}

export class Keyframes {
  /** How many keyframes the index holds. */
  count = 0;
  private lastT = Number.NEGATIVE_INFINITY;
  /** Bytes of the last keyframe's pictures, and the file's offset at it. */
  private lastBytes = 0;
  private lastOffset = 0;
  /** Whether anything was drawn since the last keyframe (an idle screen needs no new one). */
  private drewSince = true;

  constructor(private readonly options: KeyframeOptions) {}

  /** Something was drawn on the picture. */
  drew(): void {
    this.drewSince = true;
  }

  /** Whether a keyframe belongs at the frame ending at `t`, file offset `offset`. */
  due(t: number, offset: number): boolean {
    if (!this.drewSince) return false;
    const { keyframeIntervalMs, maxKeyframeIntervalMs } = this.options;
    const elapsed = t - this.lastT;
    if (elapsed >= maxKeyframeIntervalMs) return true;
    return elapsed >= keyframeIntervalMs && offset - this.lastOffset >= this.lastBytes / 2;
  }

  /** After a gap: the next frame gets a keyframe whatever the rule says. */
  restart(): void {
    this.lastT = Number.NEGATIVE_INFINITY;
    this.drewSince = true;
  }

  /**
   * Writes the reference keyframe at `t`, `offset`: `draws` (`bytes` in all) over `base`'s
   * pictures.
   */
  reference(
    t: number,
    offset: number,
    base: { entries: SurfaceEntry[]; offset: number },
    draws: ByteRange[],
    bytes: number,
  ): void {
    this.lastT = t;
    this.lastOffset = offset;
    this.drewSince = false;
    this.lastBytes = bytes;
    const entry: IndexEntry = {
      type: 'keyframe',
      t,
      offset,
      surfaces: base.entries,
      base: base.offset,
      draws: draws.map(([start, end]) => [start, end] as [number, number]),
    };
    this.options.recording.whenConfirmed(offset, () => {
      this.count++;
      this.options.index(entry);
    });
  }

  /**
   * Writes the model's picture as the keyframe at `t`, `offset`: layer 0 with `masks` black,
   * every other surface with `taint(index)` black. Resolves to the surfaces as written and where
   * their PNGs are, or undefined when the keys file refused them.
   */
  async write(
    model: DisplayModel,
    t: number,
    offset: number,
    masks: readonly Rect[],
    taint: (index: number) => readonly Rect[],
  ): Promise<{ surfaces: Map<number, Surface>; entries: SurfaceEntry[] } | undefined> {
    const { keys, recording } = this.options;
    this.lastT = t;
    this.lastOffset = offset;
    this.drewSince = false;
    const pictures: { index: number; surface: Surface; png: Buffer }[] = [];
    const written = new Map<number, Surface>();
    for (const [index, surface] of model.surfaces) {
      if (surface.width === 0 || surface.height === 0) continue;
      const black = index === 0 ? masks : taint(index);
      const region = maskedRegion(surface, { x: 0, y: 0, ...dims(surface) }, black);
      written.set(index, { ...dims(surface), rgba: region.rgba });
      pictures.push({
        index,
        surface,
        png: await encodePng(region.rgba, surface.width, surface.height),
      });
    }
    pictures.sort((a, b) => (a.index === 0 ? -1 : b.index === 0 ? 1 : a.index - b.index));
    this.lastBytes = pictures.reduce((sum, p) => sum + p.png.length, 0);
    if (keys.failure !== undefined) await keys.resume().catch(() => undefined);
    const surfaces: SurfaceEntry[] = [];
    let waiting = pictures.length + 1;
    const done = (): void => {
      if (--waiting === 0) {
        this.count++;
        this.options.index({ type: 'keyframe', t, offset, surfaces });
      }
    };
    for (const { index, surface, png } of pictures) {
      const keysOffset = keys.accepted;
      if (!keys.write(png, done)) return undefined;
      surfaces.push({ index, ...dims(surface), keysOffset, keysLength: png.length });
    }
    // The recording's bytes up to `offset` must be on disk too before the index points there.
    recording.whenConfirmed(offset, done);
    this.options.written();
    return { surfaces: written, entries: surfaces };
  }
}

export function dims(surface: Surface): { width: number; height: number } {
  return { width: surface.width, height: surface.height };
}
