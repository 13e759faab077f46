// Parser for X Window Dump files (what `xwd -root` writes), so tests can compare a client's
// framebuffer with what the X server really shows. Handles ZPixmap TrueColor/DirectColor images
// at 16, 24 and 32 bits per pixel in either byte order — what Xvnc produces.

export interface RgbaImage {
  width: number;
  height: number;
  /** width*height*4 bytes, RGBA, alpha 255. */
  rgba: Buffer;
}

const HEADER_FIELDS = 25;
const ZPIXMAP = 2;

function maskShift(mask: number): { shift: number; bits: number } {
  if (mask === 0) return { shift: 0, bits: 0 };
  let shift = 0;
  while (((mask >>> shift) & 1) === 0) shift++;
  let bits = 0;
  while (((mask >>> (shift + bits)) & 1) === 1) bits++;
  return { shift, bits };
}

/** Decodes an XWD file to RGBA. Throws with a description of what it cannot handle. */
export function parseXwd(file: Buffer): RgbaImage {
  if (file.length < HEADER_FIELDS * 4) throw new Error('XWD file shorter than its header');
  // The header is always big-endian (xwd writes it most-significant byte first).
  const field = (i: number) => file.readUInt32BE(i * 4);
  const headerSize = field(0);
  const version = field(1);
  const format = field(2);
  const width = field(4);
  const height = field(5);
  const byteOrder = field(7); // 0 = LSBFirst
  const bitsPerPixel = field(11);
  const bytesPerLine = field(12);
  const masks = [field(13 + 1), field(13 + 2), field(13 + 3)] as const; // red, green, blue
  const ncolors = field(19);
  if (version !== 7) throw new Error(`XWD version ${version} is not supported (expected 7)`);
  if (format !== ZPIXMAP)
    throw new Error(`XWD pixmap format ${format} is not supported (expected ZPixmap)`);
  if (![16, 24, 32].includes(bitsPerPixel))
    throw new Error(`XWD with ${bitsPerPixel} bits per pixel is not supported`);
  const dataStart = headerSize + ncolors * 12;
  if (file.length < dataStart + bytesPerLine * height)
    throw new Error('XWD file shorter than its image data');

  const bytes = bitsPerPixel / 8;
  const channels = masks.map(maskShift);
  const rgba = Buffer.alloc(width * height * 4);
  const byteAligned = channels.every(({ shift, bits }) => bits === 8 && shift % 8 === 0);
  if (byteAligned) {
    // The common case (depth 24): each channel is one whole byte of the pixel; copy bytes.
    const at = channels.map(({ shift }) => (byteOrder === 0 ? shift / 8 : bytes - 1 - shift / 8));
    const [r, g, b] = at as [number, number, number];
    for (let y = 0; y < height; y++) {
      let src = dataStart + y * bytesPerLine;
      let o = y * width * 4;
      for (let x = 0; x < width; x++, src += bytes, o += 4) {
        rgba[o] = file[src + r]!;
        rgba[o + 1] = file[src + g]!;
        rgba[o + 2] = file[src + b]!;
        rgba[o + 3] = 255;
      }
    }
    return { width, height, rgba };
  }
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = dataStart + y * bytesPerLine + x * bytes;
      let pixel = 0;
      for (let b = 0; b < bytes; b++) {
        const byte = file[at + b]!;
        pixel = byteOrder === 0 ? pixel + byte * 2 ** (8 * b) : pixel * 256 + byte;
      }
      const o = (y * width + x) * 4;
      channels.forEach(({ shift, bits }, c) => {
        const max = 2 ** bits - 1;
        const value = Math.floor(pixel / 2 ** shift) % 2 ** bits;
        rgba[o + c] = max === 0 ? 0 : Math.round((value * 255) / max);
      });
      rgba[o + 3] = 255;
    }
  }
  return { width, height, rgba };
}
