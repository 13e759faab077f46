// Which pixels of the server's buffers hold screen content that was under a privacy mask: a
// buffer filled by copying screen pixels from under a mask (guacd 1.6 saves the screen into a
// buffer every frame) is "tainted" there, and so is any buffer copied from a tainted area. Those
// pixels are painted black before a buffer is written to the recording (when the masks go, in
// keyframes, after a gap) — in the model itself, so the file and the model never disagree.
// Images the server draws straight into a buffer (the cursor) are not screen content: no taint.
import { clip, intersects, union, type Rect, type Surface } from './layers.js';

/** More rectangles than this per buffer are merged into one box (a long masked stretch). */
const MAX_RECTS = 64;

export class MaskTaint {
  private readonly taint = new Map<number, Rect[]>();

  /** The tainted rectangles of buffer `index`. */
  of(index: number): readonly Rect[] {
    return this.taint.get(index) ?? [];
  }

  /** Every surface starts over from pixels that never were under a mask (the file's own). */
  forgetAll(): void {
    this.taint.clear();
  }

  /** Surface `index` was disposed of: nothing of it is left. */
  forget(index: number): void {
    this.taint.delete(index);
  }

  /** `from` of surface `src` was copied to `to` of `dst`, while `masks` were in force. */
  copied(src: number, from: Rect, dst: number, to: Rect, masks: readonly Rect[]): void {
    const dx = to.x - from.x;
    const dy = to.y - from.y;
    let sources: readonly Rect[] = [];
    if (src === 0 && masks.length > 0) sources = masks;
    else if (src !== 0) sources = this.taint.get(src) ?? [];
    const added: Rect[] = [];
    for (const r of sources) {
      if (!intersects(r, from)) continue;
      const x = Math.max(r.x, from.x);
      const y = Math.max(r.y, from.y);
      const w = Math.min(r.x + r.width, from.x + from.width) - x;
      const h = Math.min(r.y + r.height, from.y + from.height) - y;
      added.push({ x: x + dx, y: y + dy, width: w, height: h });
    }
    if (added.length === 0) return;
    const list = this.taint.get(dst) ?? [];
    // A long masked stretch copies the same areas over and over; keep the list short.
    if (list.length + added.length > MAX_RECTS) {
      let box: Rect | undefined;
      for (const r of [...list, ...added]) box = union(box, r);
      this.taint.set(dst, box ? [box] : []);
    } else this.taint.set(dst, [...list, ...added]);
  }

  /** Paints `surface`'s (buffer `index`'s) tainted pixels black, and forgets the taint. */
  sanitize(index: number, surface: Surface | undefined): void {
    const rects = this.taint.get(index);
    this.taint.delete(index);
    if (!rects || !surface) return;
    for (const r of rects) {
      const area = clip(r, surface.width, surface.height);
      for (let y = area.y; y < area.y + area.height; y++) {
        const start = (y * surface.width + area.x) * 4;
        surface.rgba.fill(Buffer.from([0, 0, 0, 255]), start, start + area.width * 4);
      }
    }
  }
}
