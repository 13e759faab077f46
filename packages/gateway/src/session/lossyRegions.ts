// Where one browser shows lossy (JPEG/WebP) pixels, and since when. Updated in the order the
// browser draws: a frame's copies first (lossy pixels move with them), then its images (an exact
// image clears the area, a lossy one marks it). A region whose lossy pixels have not changed for
// the refresh delay has settled: the user's frame encoder redraws it losslessly, so a still screen is always
// pixel-exact. Rectangles are kept exact (subtraction, not bounding boxes) so a refresh covers
// only what is really lossy; past a cap the closest pair is fused, which is conservative.
import type { CopyOp } from '../encode/instructions.js';
import {
  area,
  intersection,
  isEmpty,
  subtract,
  translate,
  union,
  type Rect,
} from '../encode/rect.js';
import { copySource, copyTarget } from './frameState.js';

interface Entry {
  rect: Rect;
  /** When these pixels were last drawn lossy (or moved), ms. */
  at: number;
}

/** More entries than this and the two whose union wastes least are fused. */
const MAX_ENTRIES = 64;

export class LossyRegions {
  private entries: Entry[] = [];

  get isEmpty(): boolean {
    return this.entries.length === 0;
  }

  /** Everything was redrawn exactly (a resize). */
  reset(): void {
    this.entries = [];
  }

  /** A copy of these regions (a user falling out of a shared stream takes the stream's). */
  clone(): LossyRegions {
    const copy = new LossyRegions();
    copy.entries = this.entries.map((e) => ({ rect: e.rect, at: e.at }));
    return copy;
  }

  /**
   * Adds `other`'s regions (a user joining a shared stream brings where its screen is lossy):
   * overlaps are kept twice, which only redraws them when the later one settles.
   */
  merge(other: LossyRegions): void {
    for (const e of other.entries) this.entries.push({ rect: e.rect, at: e.at });
    this.cap();
  }

  /** The browser ran `op`: lossy pixels under its source now also sit at its destination. */
  copied(op: CopyOp, now: number): void {
    const src = copySource(op);
    const moved = this.entries
      .map((e) => intersection(e.rect, src))
      .filter((r) => !isEmpty(r))
      .map((r) => translate(r, op.x - op.srcX, op.y - op.srcY));
    this.remove(copyTarget(op));
    for (const rect of moved) this.entries.push({ rect, at: now });
    this.cap();
  }

  /** The browser drew `rect` exactly. */
  drawnExact(rect: Rect): void {
    this.remove(rect);
  }

  /** The browser drew `rect` lossy at `now`. */
  drawnLossy(rect: Rect, now: number): void {
    this.remove(rect);
    this.entries.push({ rect, at: now });
    this.cap();
  }

  /** Takes out the regions unchanged for `settleMs` by `now`: they need a lossless redraw. */
  takeSettled(now: number, settleMs: number): Rect[] {
    const settled = this.entries.filter((e) => now - e.at >= settleMs);
    if (settled.length === 0) return [];
    this.entries = this.entries.filter((e) => now - e.at < settleMs);
    return settled.map((e) => e.rect);
  }

  /** When the next region settles (undefined: nothing lossy). */
  nextSettle(settleMs: number): number | undefined {
    if (this.entries.length === 0) return undefined;
    return Math.min(...this.entries.map((e) => e.at)) + settleMs;
  }

  private remove(rect: Rect): void {
    const kept: Entry[] = [];
    for (const e of this.entries) {
      for (const piece of subtract(e.rect, rect)) kept.push({ rect: piece, at: e.at });
    }
    this.entries = kept;
  }

  private cap(): void {
    while (this.entries.length > MAX_ENTRIES) {
      let best: [number, number] = [0, 1];
      let bestWaste = Infinity;
      for (let i = 0; i < this.entries.length; i++) {
        for (let j = i + 1; j < this.entries.length; j++) {
          const a = this.entries[i]!.rect;
          const b = this.entries[j]!.rect;
          const waste = area(union(a, b)) - area(a) - area(b);
          if (waste < bestWaste) {
            bestWaste = waste;
            best = [i, j];
          }
        }
      }
      const b = this.entries.splice(best[1], 1)[0]!;
      const a = this.entries.splice(best[0], 1)[0]!;
      // The fused region settles when its latest part does.
      this.entries.push({ rect: union(a.rect, b.rect), at: Math.max(a.at, b.at) });
    }
  }
}
