// Pictures the recorder writes itself, rather than passing the server's through: a region of a
// surface with rectangles painted black, encoded as PNG with sharp, and the Guacamole `img` +
// `blob` + `end` instructions that draw it (blobs of at most 6048 raw bytes, as guacd splits).
import sharp from 'sharp';
import { encodeInstruction } from '@overlay-companion/guac';
import { blackOut, crop, type Rect, type Surface } from './layers.js';

const BLOB_RAW_BYTES = 6048;

/** The stream index the recorder's own images use (only ever one open at a time). */
export const RECORDER_STREAM = 0;

/** `area` of `surface` (clipped) with `black` painted over, as a tight RGBA buffer. */
export function maskedRegion(
  surface: Surface,
  area: Rect,
  black: readonly Rect[],
): { rect: Rect; rgba: Buffer } {
  const region = crop(surface, area);
  if (region.rgba.length > 0 && black.length > 0) blackOut(region.rgba, region.rect, black);
  return region;
}

/** RGBA → PNG. Level 3: the size of level 6 within a few percent at a third of the time. */
export async function encodePng(rgba: Buffer, width: number, height: number): Promise<Buffer> {
  return sharp(rgba, { raw: { width, height, channels: 4 } })
    .png({ compressionLevel: 3, adaptiveFiltering: false })
    .toBuffer();
}

/** The instructions that draw `png` at (x, y) of `layer`, as protocol text. */
export function imageText(layer: number, x: number, y: number, png: Buffer, mask: number): string {
  let out = encodeInstruction('img', RECORDER_STREAM, mask, layer, 'image/png', x, y);
  for (let o = 0; o < png.length; o += BLOB_RAW_BYTES)
    out += encodeInstruction(
      'blob',
      RECORDER_STREAM,
      png.subarray(o, o + BLOB_RAW_BYTES).toString('base64'),
    );
  return out + encodeInstruction('end', RECORDER_STREAM);
}
