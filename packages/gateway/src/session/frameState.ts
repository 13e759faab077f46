// What one browser still has to be sent: a pending size change, copies (moved regions), dirty
// rectangles, the parts of those that must be redrawn losslessly, and the latest cursor. Each
// joined browser has its own FrameState so a slow one coalesces changes instead of queueing
// frames. The invariant kept here: after the pending copies run in order on the browser and the
// dirty rectangles are redrawn from the current framebuffer, the browser shows exactly the
// server's framebuffer.
//
// A copy is kept even when its source holds pixels the browser does not have yet (a dirty
// rectangle): the browser moves what it has, and the moved part of that dirty rectangle is
// marked dirty at its destination; dirty rectangles the copy overwrites entirely are dropped.
// So a scroll that keeps going while the browser is busy stays a few copies plus the new lines,
// instead of turning into a full-screen image.
import { DirtyRegions } from '../encode/dirtyRegions.js';
import type { CopyOp } from '../encode/instructions.js';
import { area, intersection, isEmpty, translate, union, type Rect } from '../encode/rect.js';

export interface CursorImage {
  hotX: number;
  hotY: number;
  width: number;
  height: number;
  rgba: Buffer;
}

export interface PendingFrame {
  size: { width: number; height: number } | undefined;
  copies: CopyOp[];
  rects: Rect[];
  /** Areas within `rects` that must be drawn losslessly (settled lossy regions). */
  lossless: Rect[];
  cursor: CursorImage | undefined;
}

/** More queued moves than this and drawing the result is cheaper than replaying them. */
const MAX_PENDING_COPIES = 64;
/** Queued moves may shift at most this many screens' worth of pixels in the browser. */
const MAX_PENDING_COPY_SCREENS = 8;

export const copySource = (op: CopyOp): Rect => ({
  x: op.srcX,
  y: op.srcY,
  width: op.width,
  height: op.height,
});
export const copyTarget = (op: CopyOp): Rect => ({
  x: op.x,
  y: op.y,
  width: op.width,
  height: op.height,
});

/**
 * What one more image costs beyond its pixels, in pixels: a sharp encode has a fixed cost of
 * about 0.5 ms (pipeline set-up, the worker hop), the time it takes to encode some 16k pixels
 * of text as lossless WebP. Two dirty rectangles whose union adds fewer unchanged pixels than
 * this are cheaper sent as one image.
 */
const IMAGE_COST_PIXELS = 16 * 1024;

export class FrameState {
  private readonly dirty: DirtyRegions;
  private readonly lossless: DirtyRegions;
  private copies: CopyOp[] = [];
  private copiedPixels = 0;
  private size: { width: number; height: number } | undefined;
  private cursor: CursorImage | undefined;

  constructor(
    private width: number,
    private height: number,
  ) {
    this.dirty = new DirtyRegions(width, height, { mergeSlackPixels: IMAGE_COST_PIXELS });
    this.lossless = new DirtyRegions(width, height);
  }

  get hasPending(): boolean {
    return (
      this.size !== undefined ||
      this.cursor !== undefined ||
      this.copies.length > 0 ||
      !this.dirty.isEmpty
    );
  }

  /** A new screen size: everything queued for the old size is void; redraw it all. */
  resize(width: number, height: number): void {
    this.width = width;
    this.height = height;
    this.size = { width, height };
    this.copies = [];
    this.copiedPixels = 0;
    this.dirty.reset(width, height);
    this.lossless.reset(width, height);
    this.dirty.addFullScreen();
  }

  markDirty(rect: Rect): void {
    this.dirty.add(rect);
  }

  /** Redraw `rect` losslessly (a lossy image there has settled). */
  markLossless(rect: Rect): void {
    this.dirty.add(rect);
    this.lossless.add(rect);
  }

  /** A region moved on the server (RFB CopyRect, or a shift the gateway found). */
  addCopy(op: CopyOp): void {
    const src = copySource(op);
    const dst = copyTarget(op);
    const screen = this.width * this.height;
    if (
      this.copies.length >= MAX_PENDING_COPIES ||
      this.copiedPixels + area(dst) > MAX_PENDING_COPY_SCREENS * screen
    ) {
      this.dirty.add(dst);
      return;
    }
    const dx = op.x - op.srcX;
    const dy = op.y - op.srcY;
    for (const regions of [this.dirty, this.lossless]) {
      const moved = regions
        .list()
        .map((r) => intersection(r, src))
        .filter((r) => !isEmpty(r))
        .map((r) => translate(r, dx, dy));
      regions.dropInside(dst);
      for (const r of moved) regions.add(r);
    }
    // Pointless if everything it writes will be redrawn anyway.
    if (this.dirty.covers(dst)) return;
    this.copiedPixels += area(dst);
    const last = this.copies.at(-1);
    const merged = last === undefined ? undefined : mergeCopies(last, op);
    if (merged !== undefined) this.copies[this.copies.length - 1] = merged;
    else this.copies.push(op);
  }

  setCursor(cursor: CursorImage): void {
    this.cursor = cursor;
  }

  /**
   * Adds `frame` (taken from another FrameState of the same screen) as if its changes had
   * arrived here: a user that was not sent a frame gets it back as pending changes.
   */
  apply(frame: PendingFrame): void {
    if (frame.size !== undefined) this.resize(frame.size.width, frame.size.height);
    for (const op of frame.copies) this.addCopy(op);
    for (const rect of frame.rects) this.markDirty(rect);
    for (const rect of frame.lossless) this.markLossless(rect);
    if (frame.cursor !== undefined) this.setCursor(frame.cursor);
  }

  /** Everything pending, in send order; the state is empty afterwards. */
  take(): PendingFrame {
    const frame: PendingFrame = {
      size: this.size,
      copies: this.copies,
      rects: this.dirty.take(),
      lossless: this.lossless.take(),
      cursor: this.cursor,
    };
    this.size = undefined;
    this.copies = [];
    this.copiedPixels = 0;
    this.cursor = undefined;
    return frame;
  }

  /** Read-only view of the dirty rectangles, for tests. */
  dirtyRects(): readonly Rect[] {
    return this.dirty.list();
  }
}

/**
 * One copy doing the work of `first` then `second`, when that is the same thing: the same
 * move, destinations that together form one rectangle (servers send a scroll as bands), and
 * `second` not reading what `first` wrote — then moving the whole block at once is identical.
 */
export function mergeCopies(first: CopyOp, second: CopyOp): CopyOp | undefined {
  if (first.x - first.srcX !== second.x - second.srcX) return undefined;
  if (first.y - first.srcY !== second.y - second.srcY) return undefined;
  const a = copyTarget(first);
  const b = copyTarget(second);
  const stacked =
    a.x === b.x && a.width === b.width && (a.y + a.height === b.y || b.y + b.height === a.y);
  const sideBySide =
    a.y === b.y && a.height === b.height && (a.x + a.width === b.x || b.x + b.width === a.x);
  if (!stacked && !sideBySide) return undefined;
  if (!isEmpty(intersection(copySource(second), a))) return undefined;
  const dst = union(a, b);
  return {
    x: dst.x,
    y: dst.y,
    width: dst.width,
    height: dst.height,
    srcX: dst.x - (first.x - first.srcX),
    srcY: dst.y - (first.y - first.srcY),
  };
}
