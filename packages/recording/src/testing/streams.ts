// Test helpers that build server→client instruction streams the way our gateway and guacd 1.6
// write them (solid PNG images split into blobs, moves through a buffer, rect+cfill), and that
// look for a colour inside rectangles of a picture.
import sharp from 'sharp';
import type { GuacInstruction } from '@overlay-companion/guac';
import type { Rect, Surface } from '../layers.js';

export const ins = (opcode: string, ...args: (string | number)[]): GuacInstruction => ({
  opcode,
  args: args.map(String),
});

export async function solidPng(
  width: number,
  height: number,
  rgb: readonly [number, number, number],
): Promise<Buffer> {
  return sharp({
    create: { width, height, channels: 3, background: { r: rgb[0], g: rgb[1], b: rgb[2] } },
  })
    .png()
    .toBuffer();
}

/** `img` + `blob`s + `end` for a PNG on `layer` at (x, y), OVER. */
export function imageStream(
  stream: number,
  layer: number,
  x: number,
  y: number,
  png: Buffer,
): GuacInstruction[] {
  const out = [ins('img', stream, 14, layer, 'image/png', x, y)];
  for (let o = 0; o < png.length; o += 6048)
    out.push(ins('blob', stream, png.subarray(o, o + 6048).toString('base64')));
  out.push(ins('end', stream));
  return out;
}

/** Pixels of colour `rgb` (±tolerance per channel) inside `rects` of `surface`. */
export function countColourIn(
  surface: Surface,
  rects: readonly Rect[],
  rgb: readonly [number, number, number],
  tolerance = 0,
): number {
  let count = 0;
  for (const r of rects) {
    for (let y = Math.max(0, r.y); y < Math.min(surface.height, r.y + r.height); y++) {
      for (let x = Math.max(0, r.x); x < Math.min(surface.width, r.x + r.width); x++) {
        const o = (y * surface.width + x) * 4;
        if (
          Math.abs(surface.rgba[o]! - rgb[0]) <= tolerance &&
          Math.abs(surface.rgba[o + 1]! - rgb[1]) <= tolerance &&
          Math.abs(surface.rgba[o + 2]! - rgb[2]) <= tolerance
        )
          count++;
      }
    }
  }
  return count;
}

/** The RGB of one pixel, as hex. */
export function pixelAt(surface: Surface, x: number, y: number): string {
  const o = (y * surface.width + x) * 4;
  return surface.rgba.subarray(o, o + 3).toString('hex');
}
