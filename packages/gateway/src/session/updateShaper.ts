// Turns one RFB update into what the session's browsers are told: the server's own CopyRects
// as they came, in order, and the moves the gateway finds itself by comparing rows of the
// picture before the update (the shadow) with the picture after it (verticalShift.ts), then
// what is left to draw. Moves are looked for in every update: one without CopyRects (a server
// that does not send them, or content that scrolled in a way the server did not track), and
// one with them, in the areas the server drew instead of copying — TigerVNC copies only the
// part of a scroll whose source is visible, and a window over a scrolling terminal makes it
// send everything below that window's top as new pixels each update (measured on the bench's
// desktop: three times the rows that really changed). The shadow is the framebuffer as it was
// at the end of the previous update, except in its stale areas: what the server copied into is
// only marked stale (a scroll's copy is most of the screen, and copying it into the shadow on
// every update cost more than the rest of the shaping), drawn areas are caught up at once, and
// an update without CopyRects catches the stale areas up; moves are never looked for where the
// shadow is stale.
import { DirtyRegions } from '../encode/dirtyRegions.js';
import type { CopyOp } from '../encode/instructions.js';
import { area, intersection, intersects, isEmpty, union, type Rect } from '../encode/rect.js';
import { planVerticalShift, type ShiftPlan } from '../encode/verticalShift.js';
import { copySource, copyTarget } from './frameState.js';

/**
 * An update drawn in several regions with at least this many pixels (or a quarter of a smaller
 * screen) is also planned as one band across them (a scroll drawn in pieces); smaller ones are
 * not worth comparing the rows between.
 */
const PLAN_ACROSS_PIXELS = 64 * 1024;
/** Rows no region covers in a column, at least, to cut the box into spans there. */
const HOLE_ROWS = 32;

export type ShapedOp = { kind: 'copy'; op: CopyOp } | { kind: 'rect'; rect: Rect };

export class UpdateShaper {
  private shadow: Buffer;
  /** Where the shadow may differ from the framebuffer at the start of the update. */
  private readonly stale: DirtyRegions;
  private ops: ShapedOp[] = [];
  private serverCopied = false;

  constructor(
    private width: number,
    private height: number,
  ) {
    this.shadow = Buffer.alloc(width * height * 4);
    this.stale = new DirtyRegions(width, height);
  }

  /** The framebuffer was reallocated: the shadow starts over from the new (blank) picture. */
  resize(width: number, height: number, framebuffer: Buffer): void {
    this.width = width;
    this.height = height;
    this.shadow = Buffer.from(framebuffer);
    this.stale.reset(width, height);
    this.ops = [];
    this.serverCopied = false;
  }

  rect(rect: Rect): void {
    this.ops.push({ kind: 'rect', rect });
  }

  copy(op: CopyOp): void {
    this.ops.push({ kind: 'copy', op });
    this.serverCopied = true;
  }

  /** The update ended with `framebuffer` as its result: the ops for the browsers, in order. */
  finish(framebuffer: Buffer): ShapedOp[] {
    const ops = this.ops;
    this.ops = [];
    if (this.serverCopied) {
      this.serverCopied = false;
      return this.shapeServerCopied(ops, framebuffer);
    }
    const shaped = this.findMoves(ops, framebuffer, []);
    for (const rect of this.stale.take()) this.catchUp(rect, framebuffer);
    for (const op of ops) if (op.kind === 'rect') this.catchUp(op.rect, framebuffer);
    return shaped;
  }

  /**
   * An update with CopyRects: they go first, as they came; moves are looked for in the drawn
   * regions that none of them touches in a way the browser would see differently — a region
   * a CopyRect writes into (the browser's pixels there are no longer the shadow's), or one
   * with a rectangle drawn before a CopyRect that reads it (the CopyRect must move the new
   * pixels, so that rectangle keeps its place). Such regions go as they came.
   */
  private shapeServerCopied(ops: readonly ShapedOp[], framebuffer: Buffer): ShapedOp[] {
    const serverCopies: CopyOp[] = [];
    /** Drawn before a CopyRect that reads them: these must stay where they are. */
    const pinned: Rect[] = [];
    for (const op of ops) {
      if (op.kind === 'copy') serverCopies.push(op.op);
    }
    ops.forEach((op, i) => {
      if (op.kind !== 'rect') return;
      for (let j = i + 1; j < ops.length; j++) {
        const later = ops[j]!;
        if (later.kind === 'copy' && intersects(op.rect, copySource(later.op))) {
          pinned.push(op.rect);
          return;
        }
      }
    });
    const writes = serverCopies.map(copyTarget);
    const kept: ShapedOp[] = [];
    const free: ShapedOp[] = [];
    for (const op of ops) {
      if (op.kind === 'rect' && !pinned.some((p) => intersects(p, op.rect))) free.push(op);
      else kept.push(op);
    }
    const shaped = this.findMoves(free, framebuffer, writes, pinned);
    // The shadow: drawn areas are caught up now, what the server copied into goes stale —
    // except within the rows drawn, where the next update of a steady scroll draws again and
    // its moves are looked for: caught up there too (a few rows, not the whole copy).
    let drawn: Rect | undefined;
    for (const op of ops) {
      if (op.kind !== 'rect') continue;
      this.catchUp(op.rect, framebuffer);
      drawn = drawn === undefined ? op.rect : union(drawn, op.rect);
    }
    for (const target of writes) this.stale.add(target);
    if (drawn !== undefined) this.refresh({ ...drawn, x: 0, width: this.width }, framebuffer);
    return [...kept, ...shaped];
  }

  /**
   * Moves and what is left to draw for the drawn rectangles among `ops`. `written`: areas
   * earlier ops of this update (the server's CopyRects) wrote, which no move may read; `pinned`:
   * rectangles that must be drawn where they are. Moves are looked for in the tallest band of
   * rows of each region that none of those, nor a stale part of the shadow, crosses.
   */
  private findMoves(
    ops: readonly ShapedOp[],
    framebuffer: Buffer,
    written: readonly Rect[],
    pinned: readonly Rect[] = [],
  ): ShapedOp[] {
    // The update's rectangles as a few regions (servers send 64×64 tiles and small bands).
    const regions = new DirtyRegions(this.width, this.height);
    for (const op of ops) if (op.kind === 'rect') regions.add(op.rect);
    const blockers = [...written, ...pinned, ...this.stale.list()];
    const list = regions.take();
    const copies: CopyOp[] = [];
    const changed: Rect[] = [];
    const addCopies = (found: readonly CopyOp[]) => {
      for (const copy of found) {
        // Each copy must read pixels no earlier copy of this update wrote.
        const source = copySource(copy);
        if (
          written.some((w) => intersects(w, source)) ||
          copies.some((c) => intersects(copyTarget(c), source))
        ) {
          changed.push(copyTarget(copy));
        } else {
          copies.push(copy);
        }
      }
    };
    // A scroll the server drew in pieces (lines around a window, bands between blank rows)
    // moves rows from one region into another: planned as one band across them when that
    // draws fewer pixels.
    const whole = this.planAcross(list, blockers, framebuffer);
    if (whole !== undefined) {
      addCopies(whole.copies);
      changed.push(...whole.changed);
    } else {
      for (const region of list) {
        // A stale shadow holds no picture from before this update there; plans read only
        // pixels of their own band.
        const band = freeBand(region, blockers);
        const plan =
          band === undefined
            ? undefined
            : planVerticalShift(this.shadow, framebuffer, this.width, band);
        if (band === undefined || plan === undefined) {
          changed.push(region);
          continue;
        }
        changed.push(...outside(region, band));
        addCopies(plan.copies);
        changed.push(...plan.changed);
      }
    }
    return [
      ...copies.map((op): ShapedOp => ({ kind: 'copy', op })),
      ...changed.map((rect): ShapedOp => ({ kind: 'rect', rect })),
    ];
  }

  /**
   * One plan across all of `regions` when the update is large, in several regions, and moves
   * found that way leave fewer pixels to draw than the regions hold; otherwise undefined. The
   * regions' bounding box is cut into column spans at tall holes no region covers (a window
   * standing over a scrolling terminal: rows only match beside it), and each span's band of
   * rows that no blocker crosses is planned on its own.
   */
  private planAcross(
    regions: readonly Rect[],
    blockers: readonly Rect[],
    framebuffer: Buffer,
  ): ShiftPlan | undefined {
    if (regions.length < 2) return undefined;
    const drawn = regions.reduce((sum, r) => sum + area(r), 0);
    if (drawn < Math.min(PLAN_ACROSS_PIXELS, (this.width * this.height) / 4)) return undefined;
    const box = regions.reduce(union);
    const copies: CopyOp[] = [];
    const changed: Rect[] = [];
    const planned: Rect[] = [];
    for (const span of columnSpans(box, regions)) {
      const band = freeBand(span, blockers);
      if (band === undefined) continue;
      const plan = planVerticalShift(this.shadow, framebuffer, this.width, band);
      if (plan === undefined || plan.copies.length === 0) continue;
      copies.push(...plan.copies);
      changed.push(...plan.changed);
      planned.push(band);
    }
    if (copies.length === 0) return undefined;
    for (const region of regions) {
      let left = [region];
      for (const done of planned) left = left.flatMap((r) => subtract(r, done));
      changed.push(...left);
    }
    if (changed.reduce((sum, r) => sum + area(r), 0) >= drawn) return undefined;
    return { copies, changed };
  }

  /** Catches the shadow up within `area`: nothing there is stale any more. */
  private refresh(area: Rect, framebuffer: Buffer): void {
    const stale = this.stale.take();
    for (const rect of stale) {
      const inner = intersection(rect, area);
      if (isEmpty(inner)) {
        this.stale.add(rect);
        continue;
      }
      this.catchUp(inner, framebuffer);
      for (const part of subtract(rect, area)) this.stale.add(part);
    }
  }

  private catchUp(rect: Rect, framebuffer: Buffer): void {
    const rowBytes = rect.width * 4;
    for (let y = rect.y; y < rect.y + rect.height; y++) {
      const at = (y * this.width + rect.x) * 4;
      framebuffer.copy(this.shadow, at, at, at + rowBytes);
    }
  }
}

/**
 * The tallest band of `region`'s rows (its full width) that none of `blockers` crosses
 * (undefined: none is left).
 */
export function freeBand(region: Rect, blockers: readonly Rect[]): Rect | undefined {
  const blocked = blockers
    .filter((b) => intersects(b, region))
    .map((b) => [Math.max(b.y, region.y), Math.min(b.y + b.height, region.y + region.height)])
    .sort((a, b) => a[0]! - b[0]!);
  let best: Rect | undefined;
  let from = region.y;
  const consider = (to: number) => {
    if (to > from && (best === undefined || to - from > best.height)) {
      best = { x: region.x, y: from, width: region.width, height: to - from };
    }
  };
  for (const [top, bottom] of blocked) {
    consider(top!);
    from = Math.max(from, bottom!);
  }
  consider(region.y + region.height);
  return best;
}

/** The parts of `region` above and below `band`'s rows (band: a band of rows, any columns). */
function outside(region: Rect, band: Rect): Rect[] {
  const parts: Rect[] = [];
  const above = intersection(region, { ...region, height: Math.max(0, band.y - region.y) });
  if (!isEmpty(above)) parts.push(above);
  const bandBottom = band.y + band.height;
  const below = intersection(region, {
    ...region,
    y: bandBottom,
    height: Math.max(0, region.y + region.height - bandBottom),
  });
  if (!isEmpty(below)) parts.push(below);
  return parts;
}

/**
 * `box` cut into column spans (its full height each) wherever, in some column, HOLE_ROWS rows in
 * a row between covered ones are covered by none of `regions`.
 */
function columnSpans(box: Rect, regions: readonly Rect[]): Rect[] {
  const edges = [box.x, box.x + box.width, ...regions.flatMap((r) => [r.x, r.x + r.width])];
  const xs = [...new Set(edges)].sort((a, b) => a - b);
  const spans: Rect[] = [];
  let start: number | undefined;
  const close = (end: number) => {
    if (start !== undefined && end > start) {
      spans.push({ x: start, y: box.y, width: end - start, height: box.height });
    }
    start = undefined;
  };
  for (let i = 0; i + 1 < xs.length; i++) {
    const [x0, x1] = [xs[i]!, xs[i + 1]!];
    const covered = regions
      .filter((r) => r.x <= x0 && r.x + r.width >= x1)
      .map((r) => [r.y, r.y + r.height] as const)
      .sort((a, b) => a[0] - b[0]);
    // Rows uncovered between covered ones (above the first and below the last is only
    // unchanged screen, which a plan finds the same).
    let gap = covered.length === 0 ? HOLE_ROWS : 0;
    let from = covered[0]?.[0] ?? box.y;
    for (const [top, bottom] of covered) {
      gap = Math.max(gap, top - from);
      from = Math.max(from, bottom);
    }
    if (gap >= HOLE_ROWS) close(x0);
    else start ??= x0;
  }
  close(box.x + box.width);
  return spans;
}

/** `r` less `cut`, as up to four rectangles. */
function subtract(r: Rect, cut: Rect): Rect[] {
  const inner = intersection(r, cut);
  if (isEmpty(inner)) return [r];
  const parts: Rect[] = [
    { x: r.x, y: r.y, width: r.width, height: inner.y - r.y },
    {
      x: r.x,
      y: inner.y + inner.height,
      width: r.width,
      height: r.y + r.height - inner.y - inner.height,
    },
    { x: r.x, y: inner.y, width: inner.x - r.x, height: inner.height },
    {
      x: inner.x + inner.width,
      y: inner.y,
      width: r.x + r.width - inner.x - inner.width,
      height: inner.height,
    },
  ];
  return parts.filter((p) => !isEmpty(p));
}
