// How much of what the person sees the AI's drawing may hide. An AI can draw one opaque box over
// the whole desktop, tile it with many small ones, or stack them; past MAX_COVERED_SHARE of the
// visible desktop the viewer draws the whole overlay layer at VEIL_OPACITY (so every desktop pixel
// shows through at least half, however many boxes are stacked there) and no interactive overlay
// catches a click (so the desktop stays usable). There is no setting for the person to allow
// more yet: the limit always applies. Coverage is the union's share, counted on a grid of sample
// points: cheap for 10,000 overlays, exact enough for "most of the screen".

/** Past this share of the visible desktop covered, the AI's drawing is veiled and click-through. */
export const MAX_COVERED_SHARE = 0.5;
/** The overlay layer's opacity while veiled: the desktop under it stays at least half visible. */
export const VEIL_OPACITY = 0.5;
import type { RectLike } from '../viewport/viewport.js';

/** Sample points across and down the area. */
const GRID = 32;

/** The union of rectangles added, sampled over `area` (any units, the same for both). */
export class CoverGrid {
  readonly #area: RectLike;
  readonly #hit: Uint8Array;
  #count = 0;

  constructor(area: RectLike, from?: CoverGrid) {
    this.#area = area;
    this.#hit = from === undefined ? new Uint8Array(GRID * GRID) : from.#hit.slice();
    this.#count = from === undefined ? 0 : from.#count;
  }

  /** Column or row index range [first, end) of the sample points inside [start, start+size). */
  #span(start: number, size: number, origin: number, extent: number): [number, number] {
    if (extent <= 0) return [0, 0];
    // Sample point i sits at the centre of cell i: origin + (i + 0.5) * extent / GRID.
    const step = extent / GRID;
    const first = Math.max(0, Math.ceil((start - origin) / step - 0.5));
    const end = Math.min(GRID, Math.ceil((start + size - origin) / step - 0.5));
    return [first, end];
  }

  add(x: number, y: number, width: number, height: number): void {
    if (this.exceeds()) return; // the answer cannot change any more
    const a = this.#area;
    const [c0, c1] = this.#span(x, width, a.x, a.width);
    const [r0, r1] = this.#span(y, height, a.y, a.height);
    for (let r = r0; r < r1; r++) {
      const row = r * GRID;
      for (let c = c0; c < c1; c++) {
        if (this.#hit[row + c] === 0) {
          this.#hit[row + c] = 1;
          this.#count++;
        }
      }
    }
  }

  /** The share of the area covered (0 for an empty area). */
  share(): number {
    return this.#count / (GRID * GRID);
  }

  /** True when more than MAX_COVERED_SHARE of the area is covered. */
  exceeds(): boolean {
    return this.share() > MAX_COVERED_SHARE;
  }
}
