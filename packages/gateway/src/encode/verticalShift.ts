// Finds scrolled content in a changed rectangle by comparing whole pixel rows of the picture
// before and after the change: rows that are unchanged need nothing, rows that reappear `dy`
// rows away become copies, and only the rest is sent as images. This is what makes a terminal
// or a page that scrolls without the server saying so (no RFB CopyRect) cost a few new lines
// instead of the whole area.
//
// Rows are compared with Buffer#compare (native memcmp that stops at the first difference), so
// there is no per-pixel JavaScript: a few probe rows vote for the shift (each is looked up among
// the rows before the change), then every row is checked once against the winner.
import type { CopyOp } from './instructions.js';
import type { Rect } from './rect.js';

export interface ShiftPlan {
  /** In the order the browser must run them (each reads only what earlier ones left alone). */
  copies: CopyOp[];
  /** What is left to draw from the new picture. */
  changed: Rect[];
}

/** Narrower or shorter rectangles are sent as they are. */
const MIN_WIDTH = 64;
const MIN_HEIGHT = 32;
/** Probe rows tried per rectangle, and rows that must agree on a shift before it is used. */
const PROBES = 12;
const MIN_VOTES = 2;
/** A run of moved rows shorter than this is cheaper drawn than copied. */
const MIN_COPY_ROWS = 4;

type RowKind = 'same' | 'moved' | 'changed';

/**
 * Plans how to bring `rect` from `before` to `after` (RGBA framebuffers of `stride` pixels per
 * row). Undefined when the rectangle is too small to be worth looking at.
 */
export function planVerticalShift(
  before: Buffer,
  after: Buffer,
  stride: number,
  area: Rect,
): ShiftPlan | undefined {
  if (area.width < MIN_WIDTH || area.height < MIN_HEIGHT) return undefined;
  // Rows only match as a whole: a window scrolling inside a wider rectangle matches only
  // once the unchanged columns on either side are cut off.
  const columns = changedColumns(before, after, stride, area);
  if (columns === undefined) return { copies: [], changed: [] };
  const rect = { ...area, x: columns.x0, width: columns.x1 - columns.x0 };
  if (rect.width < MIN_WIDTH) return { copies: [], changed: [rect] };
  const rowBytes = rect.width * 4;
  const start = (y: number) => (y * stride + rect.x) * 4;
  const same = (a: Buffer, ya: number, b: Buffer, yb: number) =>
    a.compare(b, start(yb), start(yb) + rowBytes, start(ya), start(ya) + rowBytes) === 0;
  // A row of one colour matches every other such row: useless as a probe.
  const uniform = (y: number) =>
    after.compare(after, start(y), start(y) + rowBytes - 4, start(y) + 4, start(y) + rowBytes) ===
    0;

  const top = rect.y;
  const bottom = rect.y + rect.height;
  const dy = bestShift(
    rect,
    (y) => !uniform(y) && !same(after, y, before, y),
    (y, s) => same(after, y, before, s),
  );

  const kinds: RowKind[] = [];
  for (let y = top; y < bottom; y++) {
    // A row that would be right either way (blank space between lines of text) counts as
    // moved, so a scroll stays one copy instead of one per line.
    if (dy !== 0 && y + dy >= top && y + dy < bottom && same(after, y, before, y + dy))
      kinds.push('moved');
    else if (same(after, y, before, y)) kinds.push('same');
    else kinds.push('changed');
  }
  return toPlan(rect, kinds, dy);
}

/**
 * The columns [x0, x1) of `rect` in which some row differs between the pictures (undefined:
 * none). Each edge is found by bisection: "every row is unchanged over columns [a, b)" holds
 * for all b up to the edge, so about log2(width) passes of row comparisons find it.
 */
function changedColumns(
  before: Buffer,
  after: Buffer,
  stride: number,
  rect: Rect,
): { x0: number; x1: number } | undefined {
  const unchanged = (x0: number, x1: number) => {
    for (let y = rect.y; y < rect.y + rect.height; y++) {
      const from = (y * stride + x0) * 4;
      const to = (y * stride + x1) * 4;
      if (after.compare(before, from, to, from, to) !== 0) return false;
    }
    return true;
  };
  const left = rect.x;
  const right = rect.x + rect.width;
  if (unchanged(left, right)) return undefined;
  // Largest x0 with [left, x0) unchanged, and smallest x1 with [x1, right) unchanged.
  let lo = left;
  let hi = right - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (unchanged(left, mid)) lo = mid;
    else hi = mid - 1;
  }
  const x0 = lo;
  lo = x0 + 1;
  hi = right;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (unchanged(mid, right)) hi = mid;
    else lo = mid + 1;
  }
  return { x0, x1: lo };
}

/** The shift most probe rows agree on (0 when none does): new row y shows old row y + dy. */
function bestShift(
  rect: Rect,
  usable: (y: number) => boolean,
  matches: (y: number, source: number) => boolean,
): number {
  const votes = new Map<number, number>();
  let probes = 0;
  // Probe rows spread evenly, skipping unusable ones, until PROBES were tried.
  const step = Math.max(1, Math.floor(rect.height / (PROBES * 3)));
  for (let y = rect.y + step; y < rect.y + rect.height && probes < PROBES; y += step) {
    if (!usable(y)) continue;
    probes++;
    for (let s = rect.y; s < rect.y + rect.height; s++) {
      if (s !== y && matches(y, s)) votes.set(s - y, (votes.get(s - y) ?? 0) + 1);
    }
  }
  let best = 0;
  let bestVotes = MIN_VOTES - 1;
  for (const [shift, count] of votes) {
    if (count > bestVotes) {
      best = shift;
      bestVotes = count;
    }
  }
  return best;
}

function toPlan(rect: Rect, kinds: readonly RowKind[], dy: number): ShiftPlan {
  const runs: { kind: RowKind; from: number; to: number }[] = [];
  kinds.forEach((kind, i) => {
    const last = runs.at(-1);
    if (last !== undefined && last.kind === kind) last.to = i + 1;
    else runs.push({ kind, from: i, to: i + 1 });
  });
  const copies: CopyOp[] = [];
  const changed: Rect[] = [];
  const band = (from: number, to: number): Rect => ({
    x: rect.x,
    y: rect.y + from,
    width: rect.width,
    height: to - from,
  });
  for (const run of runs) {
    if (run.kind === 'same') continue;
    const r = band(run.from, run.to);
    if (run.kind === 'moved' && run.to - run.from >= MIN_COPY_ROWS) {
      copies.push({ srcX: r.x, srcY: r.y + dy, x: r.x, y: r.y, width: r.width, height: r.height });
    } else {
      const last = changed.at(-1);
      // Neighbouring bands (split only by a short moved run) become one image.
      if (last !== undefined && last.y + last.height === r.y) last.height += r.height;
      else changed.push(r);
    }
  }
  // Content moving up (dy > 0) reads rows below what earlier copies wrote: top first. Moving
  // down, bottom first.
  if (dy < 0) copies.reverse();
  return { copies, changed };
}
