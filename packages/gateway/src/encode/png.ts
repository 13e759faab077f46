// Turns a region of the RGBA framebuffer into a PNG with sharp, tuned for speed over size
// (loopback links are fast; the encode is what the user waits for). The pixels are copied out
// synchronously first because the RFB client keeps decoding into the same framebuffer while
// sharp reads its input on a worker thread.
import sharp from 'sharp';
import type { Rect } from './rect.js';

export interface PngOptions {
  /** Drop the alpha channel (desktop pixels are opaque; cursors are not). Default true. */
  opaque?: boolean;
  /** zlib level 0–9; 1 is the speed/size sweet spot measured for desktop content. */
  compressionLevel?: number;
}

/** Copies `rect` out of a `stride`-pixels-wide RGBA framebuffer into a tight RGBA buffer. */
export function extractRegion(framebuffer: Buffer, stride: number, rect: Rect): Buffer {
  const rowBytes = rect.width * 4;
  if (rect.x === 0 && rect.width === stride) {
    const start = rect.y * stride * 4;
    return Buffer.from(framebuffer.subarray(start, start + rowBytes * rect.height));
  }
  const out = Buffer.allocUnsafe(rowBytes * rect.height);
  for (let row = 0; row < rect.height; row++) {
    const src = ((rect.y + row) * stride + rect.x) * 4;
    framebuffer.copy(out, row * rowBytes, src, src + rowBytes);
  }
  return out;
}

/** Encodes tight RGBA pixels (`width*height*4` bytes) as PNG. */
export async function encodePng(
  rgba: Buffer,
  width: number,
  height: number,
  options: PngOptions = {},
): Promise<Buffer> {
  let image = sharp(rgba, { raw: { width, height, channels: 4 } });
  if (options.opaque ?? true) image = image.removeAlpha();
  return image
    .png({ compressionLevel: options.compressionLevel ?? 1, adaptiveFiltering: false })
    .toBuffer();
}

/**
 * Encodes one region of a framebuffer as PNG: the reusable measuring unit for benchmarks and
 * the gateway's frame path alike. The copy-out happens before this function first awaits.
 */
export function encodeRegionPng(
  framebuffer: Buffer,
  stride: number,
  rect: Rect,
  options?: PngOptions,
): Promise<Buffer> {
  const pixels = extractRegion(framebuffer, stride, rect);
  return encodePng(pixels, rect.width, rect.height, options);
}
