// What one browser still has to be sent: a pending size change, CopyRect moves, dirty
// rectangles and the latest cursor. Each joined browser has its own FrameState so a slow one
// coalesces changes instead of queueing frames. The invariant kept here: after the pending
// copies run in order on the browser and the dirty rectangles are redrawn from the current
// framebuffer, the browser shows exactly the server's framebuffer.
import { DirtyRegions } from '../encode/dirtyRegions.js';
import type { CopyOp } from '../encode/instructions.js';
import type { Rect } from '../encode/rect.js';

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
  cursor: CursorImage | undefined;
}

/** More queued moves than this and drawing the result is cheaper than replaying them. */
const MAX_PENDING_COPIES = 32;

export class FrameState {
  private readonly dirty: DirtyRegions;
  private copies: CopyOp[] = [];
  private size: { width: number; height: number } | undefined;
  private cursor: CursorImage | undefined;

  constructor(
    private width: number,
    private height: number,
  ) {
    this.dirty = new DirtyRegions(width, height);
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
    this.dirty.reset(width, height);
    this.dirty.addFullScreen();
  }

  markDirty(rect: Rect): void {
    this.dirty.add(rect);
  }

  /**
   * A CopyRect from the server. It can be replayed on the browser only if the source pixels
   * there are already correct, i.e. the source touches no pending dirty rectangle; otherwise
   * the destination simply becomes dirty and is sent as an image.
   */
  addCopy(op: CopyOp): void {
    const src = { x: op.srcX, y: op.srcY, width: op.width, height: op.height };
    const dst = { x: op.x, y: op.y, width: op.width, height: op.height };
    if (this.dirty.overlaps(src) || this.copies.length >= MAX_PENDING_COPIES) {
      this.dirty.add(dst);
    } else {
      this.copies.push(op);
    }
  }

  setCursor(cursor: CursorImage): void {
    this.cursor = cursor;
  }

  /** Everything pending, in send order; the state is empty afterwards. */
  take(): PendingFrame {
    const frame: PendingFrame = {
      size: this.size,
      copies: this.copies,
      rects: this.dirty.take(),
      cursor: this.cursor,
    };
    this.size = undefined;
    this.copies = [];
    this.cursor = undefined;
    return frame;
  }

  /** Read-only view of the dirty rectangles, for tests. */
  dirtyRects(): readonly Rect[] {
    return this.dirty.list();
  }
}
