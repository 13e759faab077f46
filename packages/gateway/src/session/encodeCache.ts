// Shares encodes between the browsers of one connection: browsers that keep up ask for the same
// rectangles of the same framebuffer state in the same way, and encoding them once instead of
// once per browser keeps connection sharing cheap. Entries live only until the framebuffer
// changes. Pixels are copied out of the framebuffer at call time (the RFB client keeps decoding
// into it) and handed to the encode pool's workers — except small exact regions, which are
// encoded as PNG right here (pngSync.ts): a worker round trip would cost them more than the
// encoding, and small changes are the ones a person waits for (typing, clicking).
import type { EncodePool } from '../encode/encodePool.js';
import type { EncodedImage, EncodeMode } from '../encode/imageTypes.js';
import { encodePng } from '../encode/png.js';
import { encodePngSync } from '../encode/pngSync.js';
import type { Rect } from '../encode/rect.js';
import type { ThumbnailRegion } from '../encode/scaleDown.js';
import { SMALL_IMAGE_PIXELS } from './encodePolicy.js';
import type { CursorImage } from './frameState.js';

export class RegionEncodeCache {
  private entries = new Map<string, Promise<EncodedImage>>();
  private readonly cursors = new WeakMap<CursorImage, Promise<Buffer>>();
  /** Encodes served from the cache, for tests and logs. */
  hits = 0;

  constructor(private readonly pool: EncodePool) {}

  /** The framebuffer changed: nothing encoded so far can be reused. */
  invalidate(): void {
    if (this.entries.size > 0) this.entries = new Map();
  }

  /** `rect` of the framebuffer as it is now, encoded as `mode` asks. */
  region(framebuffer: Buffer, stride: number, rect: Rect, mode: EncodeMode): Promise<EncodedImage> {
    const key = `${String(rect.x)},${String(rect.y)},${String(rect.width)},${String(rect.height)},${modeKey(mode)}`;
    const cached = this.entries.get(key);
    if (cached !== undefined) {
      this.hits++;
      return cached;
    }
    const pixels = copyRegion(framebuffer, stride, rect);
    const encoded =
      mode.kind === 'lossless' && rect.width * rect.height <= SMALL_IMAGE_PIXELS
        ? Promise.resolve<EncodedImage>({
            mimetype: 'image/png',
            data: encodePngSync(new Uint8Array(pixels), rect.width, rect.height),
            lossy: false,
          })
        : this.pool.encode(pixels, rect.width, rect.height, mode);
    this.entries.set(key, encoded);
    return encoded;
  }

  /**
   * Part of a thumbnail of the framebuffer as it is now (`region`: where in the `to`-sized
   * thumbnail, and the screen pixels under it), scaled down and encoded as `mode` asks; shared
   * by every browser of the connection that glances at this size, like regions.
   */
  thumbnail(
    framebuffer: Buffer,
    from: { width: number; height: number },
    to: { width: number; height: number },
    region: ThumbnailRegion,
    mode: EncodeMode,
  ): Promise<EncodedImage> {
    const { target, source } = region;
    const key = `thumbnail:${String(to.width)}x${String(to.height)}:${String(target.x)},${String(target.y)},${String(target.width)},${String(target.height)},${modeKey(mode)}`;
    const cached = this.entries.get(key);
    if (cached !== undefined) {
      this.hits++;
      return cached;
    }
    const pixels = copyRegion(framebuffer, from.width, source);
    const encoded = this.pool.encode(pixels, source.width, source.height, mode, {
      from,
      to,
      target,
    });
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

function modeKey(mode: EncodeMode): string {
  return mode.kind === 'lossless'
    ? mode.mimetype
    : `${mode.mimetype}:${String(mode.quality)}:${String(mode.force)}:${mode.lossless}`;
}

/**
 * `rect` of a `stride`-pixels-wide RGBA framebuffer as tight RGBA in an ArrayBuffer of its own
 * (it is transferred to a worker, so it must not share memory with anything else).
 */
export function copyRegion(framebuffer: Buffer, stride: number, rect: Rect): ArrayBuffer {
  const rowBytes = rect.width * 4;
  // Not zero-filled first (every byte is written below), and never from Buffer's shared pool:
  // its ArrayBuffer is this region's alone, as a transfer needs.
  const out = Buffer.allocUnsafeSlow(rowBytes * rect.height);
  if (rect.x === 0 && rect.width === stride) {
    // Whole rows are one run of the framebuffer.
    const at = rect.y * rowBytes;
    out.set(framebuffer.subarray(at, at + out.length));
    return out.buffer;
  }
  for (let row = 0; row < rect.height; row++) {
    const at = ((rect.y + row) * stride + rect.x) * 4;
    out.set(framebuffer.subarray(at, at + rowBytes), row * rowBytes);
  }
  return out.buffer;
}
