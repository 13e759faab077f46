// Shares PNG encodes between the browsers of one connection: browsers that keep up ask for the
// same rectangles of the same framebuffer state, and encoding them once instead of once per
// browser keeps connection sharing cheap. Entries live only until the framebuffer changes.
import { encodePng, encodeRegionPng } from '../encode/png.js';
import type { Rect } from '../encode/rect.js';
import type { CursorImage } from './frameState.js';

export class RegionEncodeCache {
  private entries = new Map<string, Promise<Buffer>>();
  private readonly cursors = new WeakMap<CursorImage, Promise<Buffer>>();
  /** Encodes served from the cache, for tests and logs. */
  hits = 0;

  /** The framebuffer changed: nothing encoded so far can be reused. */
  invalidate(): void {
    if (this.entries.size > 0) this.entries = new Map();
  }

  /** PNG of `rect` as the framebuffer is now (pixels are copied out before this returns). */
  region(framebuffer: Buffer, stride: number, rect: Rect): Promise<Buffer> {
    const key = `${String(rect.x)},${String(rect.y)},${String(rect.width)},${String(rect.height)}`;
    const cached = this.entries.get(key);
    if (cached !== undefined) {
      this.hits++;
      return cached;
    }
    // The same unit the bench measures, so its numbers are this path's.
    const encoded = encodeRegionPng(framebuffer, stride, rect);
    this.entries.set(key, encoded);
    return encoded;
  }

  /** PNG of a cursor image (with alpha); a 0×0 cursor becomes one transparent pixel. */
  cursor(cursor: CursorImage): Promise<Buffer> {
    const cached = this.cursors.get(cursor);
    if (cached !== undefined) return cached;
    const visible = cursor.width > 0 && cursor.height > 0;
    const encoded = visible
      ? encodePng(cursor.rgba, cursor.width, cursor.height, { opaque: false })
      : encodePng(Buffer.alloc(4), 1, 1, { opaque: false });
    this.cursors.set(cursor, encoded);
    return encoded;
  }
}
