// Which overlays changed between two frames of the overlay layer, so the canvas repaints only
// where they are (overlayPainter.ts). Store arrays are never mutated and an overlay object is
// never changed in place — a change is a new array, a new overlay a new object — so identity
// says what came and went. Anything unusual (many changes, a different order, a sync_state's
// freshly parsed objects) answers 'all': repaint everything, which is always right. Identity
// also tells the painting worker what to drop and add (overlayDelta).

/** More changes than this in one frame repaint the whole canvas (one pass is cheaper then). */
export const MAX_PARTIAL_CHANGES = 64;

/** The overlays that appeared or went between `before` and `after`, or 'all'. */
export function overlayChanges<T>(
  before: readonly T[],
  beforeSet: ReadonlySet<T>,
  after: readonly T[],
  afterSet: ReadonlySet<T>,
): T[] | 'all' {
  const changed: T[] = [];
  for (const o of before) {
    if (!afterSet.has(o) && changed.push(o) > MAX_PARTIAL_CHANGES) return 'all';
  }
  for (const o of after) {
    if (!beforeSet.has(o) && changed.push(o) > MAX_PARTIAL_CHANGES) return 'all';
  }
  return keepsOrder(before, beforeSet, after, afterSet) ? changed : 'all';
}

/** Whether those in both keep their order (later drawn on top); otherwise the pile changed. */
function keepsOrder<T>(
  before: readonly T[],
  beforeSet: ReadonlySet<T>,
  after: readonly T[],
  afterSet: ReadonlySet<T>,
): boolean {
  let i = 0;
  for (const o of after) {
    if (!beforeSet.has(o)) continue;
    while (i < before.length && !afterSet.has(before[i] as T)) i++;
    if (before[i] !== o) return false;
    i++;
  }
  return true;
}

/**
 * `after` as an edit of `before`: the ones that went, and the ones that came on top, such that
 * `before` minus `removed` plus `added` is exactly `after` — always, by construction: the walk
 * keeps the longest run of `after`'s start that `before` holds in order, and the rest of `after`
 * comes anew. The store only removes and appends, so that rest is just what it appended; a
 * reordered pile sends more, never something wrong. Identity comparisons only, no sets: the
 * page's cost per frame stays far below a millisecond with 10,000 overlays.
 */
export function overlayDelta<T>(
  before: readonly T[],
  after: readonly T[],
): { removed: T[]; added: T[] } {
  const removed: T[] = [];
  let kept = 0;
  for (const o of before) {
    if (kept < after.length && after[kept] === o) kept++;
    else removed.push(o);
  }
  return { removed, added: after.slice(kept) };
}

/** A rectangle in whole device pixels. */
export interface PixelRect {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/**
 * The device pixels a box at window rect (x, y, w, h) can touch at pixel `ratio` — rounded out
 * with a pixel to spare — clipped to a canvas of `width`×`height`; undefined when off it.
 */
export function devicePixels(
  x: number,
  y: number,
  w: number,
  h: number,
  ratio: number,
  width: number,
  height: number,
): PixelRect | undefined {
  const x0 = Math.max(0, Math.floor(x * ratio) - 1);
  const y0 = Math.max(0, Math.floor(y * ratio) - 1);
  const x1 = Math.min(width, Math.ceil((x + w) * ratio) + 1);
  const y1 = Math.min(height, Math.ceil((y + h) * ratio) + 1);
  return x1 > x0 && y1 > y0 ? { x0, y0, x1, y1 } : undefined;
}

export function touches(a: PixelRect, b: PixelRect): boolean {
  return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
}
