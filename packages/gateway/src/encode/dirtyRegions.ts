// Accumulates the changed parts of the screen between two frames sent to one browser.
// Rectangles are merged only when the merge wastes little (the union is not much larger
// than the two parts), so a one-character change stays a small PNG while the 64×64 tiles
// of a full-screen update fuse into a few large bands. The list is capped: past the cap the
// two rectangles whose union wastes least are fused, which keeps memory bounded however long
// a browser lags.
import { area, clip, contains, intersects, isEmpty, union, type Rect } from './rect.js';

export interface DirtyRegionOptions {
  /** Extra pixels a merge may add (PNG and instruction overhead makes tiny images costly). */
  mergeSlackPixels?: number;
  /** Most rectangles kept before the cheapest pairs are fused. */
  maxRects?: number;
}

export class DirtyRegions {
  private rects: Rect[] = [];
  private readonly slack: number;
  private readonly maxRects: number;

  constructor(
    private screenWidth: number,
    private screenHeight: number,
    options: DirtyRegionOptions = {},
  ) {
    this.slack = options.mergeSlackPixels ?? 32 * 32;
    this.maxRects = options.maxRects ?? 24;
  }

  get isEmpty(): boolean {
    return this.rects.length === 0;
  }

  /** The current rectangles, read-only (for tests). */
  list(): readonly Rect[] {
    return this.rects;
  }

  overlaps(r: Rect): boolean {
    return this.rects.some((e) => intersects(e, r));
  }

  /** True when one rectangle alone covers all of `r`. */
  covers(r: Rect): boolean {
    return this.rects.some((e) => contains(e, r));
  }

  /** Forgets the rectangles that lie entirely inside `r` (e.g. overwritten by a copy). */
  dropInside(r: Rect): void {
    this.rects = this.rects.filter((e) => !contains(r, e));
  }

  /** Forgets everything and adopts a new screen size (after a resize). */
  reset(screenWidth: number, screenHeight: number): void {
    this.screenWidth = screenWidth;
    this.screenHeight = screenHeight;
    this.rects = [];
  }

  addFullScreen(): void {
    this.rects = [];
    this.add({ x: 0, y: 0, width: this.screenWidth, height: this.screenHeight });
  }

  add(input: Rect): void {
    let r = clip(input, this.screenWidth, this.screenHeight);
    if (isEmpty(r)) return;
    if (this.rects.some((e) => contains(e, r))) return;
    // Absorb neighbours for as long as a merge is cheap; each merge can enable another.
    for (;;) {
      const index = this.rects.findIndex(
        (e) => area(union(e, r)) <= area(e) + area(r) + this.slack,
      );
      if (index < 0) break;
      const [e] = this.rects.splice(index, 1);
      if (e !== undefined) r = union(e, r);
    }
    this.rects = this.rects.filter((e) => !contains(r, e));
    this.rects.push(r);
    while (this.rects.length > this.maxRects) this.fuseCheapestPair();
  }

  /** Returns the rectangles to encode and starts a new, empty frame. */
  take(): Rect[] {
    const taken = this.rects;
    this.rects = [];
    return taken;
  }

  private fuseCheapestPair(): void {
    let best: [number, number] = [0, 1];
    let bestWaste = Infinity;
    for (let i = 0; i < this.rects.length; i++) {
      for (let j = i + 1; j < this.rects.length; j++) {
        const a = this.rects[i];
        const b = this.rects[j];
        if (a === undefined || b === undefined) continue;
        const waste = area(union(a, b)) - area(a) - area(b);
        if (waste < bestWaste) {
          bestWaste = waste;
          best = [i, j];
        }
      }
    }
    const b = this.rects.splice(best[1], 1)[0];
    const a = this.rects.splice(best[0], 1)[0];
    if (a !== undefined && b !== undefined) this.add(union(a, b));
  }
}
