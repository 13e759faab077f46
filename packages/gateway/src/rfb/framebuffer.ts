// The client-side copy of the remote framebuffer: RGBA bytes with alpha always 255, plus the
// pixel operations the encodings need (bounds check, Raw, CopyRect, resize). Callers check
// rectangles with `contains` before writing, so no write can leave the buffer.
import { endianness } from 'node:os';

// Pixels are written as 32-bit words R | G<<8 | B<<16 | A<<24; that is RGBA byte order only on
// little-endian hosts, which is every platform Node supports in practice.
if (endianness() !== 'LE') throw new Error('the RFB client assumes a little-endian host');

export class Framebuffer {
  width: number;
  height: number;
  buffer: Buffer;
  pixels: Uint32Array;

  constructor(width: number, height: number) {
    this.width = width;
    this.height = height;
    this.buffer = Buffer.alloc(0);
    this.pixels = new Uint32Array(0);
    this.resize(width, height);
  }

  /** Reallocates to a new size, opaque black. */
  resize(width: number, height: number): void {
    this.width = width;
    this.height = height;
    // Buffer.alloc never uses the shared pool, so the Uint32Array view is 4-byte aligned.
    this.buffer = Buffer.alloc(width * height * 4);
    this.pixels = new Uint32Array(this.buffer.buffer, this.buffer.byteOffset, width * height);
    this.pixels.fill(0xff000000);
  }

  contains(x: number, y: number, width: number, height: number): boolean {
    return x + width <= this.width && y + height <= this.height;
  }

  /**
   * Part of a Raw rectangle's pixel data (rows of `width` pixels of R, G, B and a pad byte, our
   * pixel format), written as it arrives: `data` holds its bytes from `offset` on. Alpha is
   * forced to 255.
   */
  writeRawPart(data: Buffer, x: number, y: number, width: number, offset: number): void {
    const fb = this.buffer;
    const rowBytes = width * 4;
    let at = 0;
    while (at < data.length) {
      const inRect = offset + at;
      const row = Math.floor(inRect / rowBytes);
      const col = inRect - row * rowBytes;
      const n = Math.min(rowBytes - col, data.length - at);
      const o = ((y + row) * this.width + x) * 4 + col;
      data.copy(fb, o, at, at + n);
      // Alpha bytes are every fourth, the pixel's last: the first one at or after `col`.
      for (let a = o + ((3 - (col & 3) + 4) & 3), end = o + n; a < end; a += 4) fb[a] = 255;
      at += n;
    }
  }

  /** CopyRect: overlapping source and destination are handled like memmove. */
  copy(srcX: number, srcY: number, x: number, y: number, width: number, height: number): void {
    const px = this.pixels;
    const stride = this.width;
    const copyRow = (row: number) => {
      const from = (srcY + row) * stride + srcX;
      px.copyWithin((y + row) * stride + x, from, from + width);
    };
    // Moving down: copy bottom rows first so we never read a row we already overwrote.
    if (y > srcY) for (let row = height - 1; row >= 0; row--) copyRow(row);
    else for (let row = 0; row < height; row++) copyRow(row);
  }
}
