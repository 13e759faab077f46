// Turns one RFB update into what the session's browsers are told: the server's own CopyRects
// as they came, in order; or, for an update without any, the moves the gateway finds itself by
// comparing rows of the picture before the update (the shadow) with the picture after it
// (verticalShift.ts) — copies first, then what is left to draw. The shadow is the framebuffer
// as it was at the end of the previous update, except in its stale areas: updates the server
// copied in only mark what they touched as stale (a scroll's copy is most of the screen, and
// copying it into the shadow on every update cost more than the rest of the shaping), and the
// next update the gateway looks at for moves looks only outside them, then catches them up.
import { DirtyRegions } from '../encode/dirtyRegions.js';
import type { CopyOp } from '../encode/instructions.js';
import { intersects, type Rect } from '../encode/rect.js';
import { planVerticalShift } from '../encode/verticalShift.js';
import { copySource, copyTarget } from './frameState.js';

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
      for (const op of ops) this.stale.add(op.kind === 'rect' ? op.rect : copyTarget(op.op));
      return ops;
    }
    const shaped = this.findMoves(ops, framebuffer);
    for (const rect of this.stale.take()) this.catchUp(rect, framebuffer);
    for (const op of ops) if (op.kind === 'rect') this.catchUp(op.rect, framebuffer);
    return shaped;
  }

  private findMoves(ops: readonly ShapedOp[], framebuffer: Buffer): ShapedOp[] {
    // The update's rectangles as a few regions (servers send 64×64 tiles and small bands).
    const regions = new DirtyRegions(this.width, this.height);
    for (const op of ops) if (op.kind === 'rect') regions.add(op.rect);
    const copies: CopyOp[] = [];
    const changed: Rect[] = [];
    for (const region of regions.take()) {
      // A stale shadow holds no picture from before this update there; plans read only pixels
      // of their own region.
      const plan = this.stale.overlaps(region)
        ? undefined
        : planVerticalShift(this.shadow, framebuffer, this.width, region);
      if (plan === undefined) {
        changed.push(region);
        continue;
      }
      for (const copy of plan.copies) {
        // Each copy must read pixels no earlier copy of this update wrote.
        if (copies.some((c) => intersects(copyTarget(c), copySource(copy)))) {
          changed.push(copyTarget(copy));
        } else {
          copies.push(copy);
        }
      }
      changed.push(...plan.changed);
    }
    return [
      ...copies.map((op): ShapedOp => ({ kind: 'copy', op })),
      ...changed.map((rect): ShapedOp => ({ kind: 'rect', rect })),
    ];
  }

  private catchUp(rect: Rect, framebuffer: Buffer): void {
    const rowBytes = rect.width * 4;
    for (let y = rect.y; y < rect.y + rect.height; y++) {
      const at = (y * this.width + rect.x) * 4;
      framebuffer.copy(this.shadow, at, at, at + rowBytes);
    }
  }
}
