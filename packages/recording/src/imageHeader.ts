// An image's size from the first bytes of its stream, without decoding it: PNG (IHDR), JPEG (the
// first SOF marker) and WebP (VP8, VP8L, VP8X headers). The file-following model uses it to know
// which rectangle an image will cover before deciding whether it needs decoding at all
// (visibleDraws.ts); undefined when the bytes do not say (that image is always decoded).

export interface ImageSize {
  width: number;
  height: number;
}

/** How many base64 characters of an image's first blobs are enough to read its header. */
export const HEADER_BASE64_CHARS = 8192;

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export function imageSize(mimetype: string, bytes: Buffer): ImageSize | undefined {
  const size =
    mimetype === 'image/png'
      ? pngSize(bytes)
      : mimetype === 'image/jpeg'
        ? jpegSize(bytes)
        : mimetype === 'image/webp'
          ? webpSize(bytes)
          : undefined;
  return size !== undefined && size.width > 0 && size.height > 0 ? size : undefined;
}

function pngSize(b: Buffer): ImageSize | undefined {
  if (b.length < 24 || !b.subarray(0, 8).equals(PNG_SIGNATURE)) return undefined;
  if (b.toString('latin1', 12, 16) !== 'IHDR') return undefined;
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

function jpegSize(b: Buffer): ImageSize | undefined {
  if (b[0] !== 0xff || b[1] !== 0xd8) return undefined;
  for (let at = 2; at + 9 <= b.length;) {
    if (b[at] !== 0xff) return undefined;
    const marker = b[at + 1]!;
    if (marker === 0xff) {
      at++;
      continue;
    }
    // SOF0–SOF15 except DHT (C4), JPG (C8) and DAC (CC): height, then width.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
      return { width: b.readUInt16BE(at + 7), height: b.readUInt16BE(at + 5) };
    if (marker === 0xd9 || marker === 0xda) return undefined;
    at += 2 + b.readUInt16BE(at + 2);
  }
  return undefined;
}

function webpSize(b: Buffer): ImageSize | undefined {
  if (
    b.length < 30 ||
    b.toString('latin1', 0, 4) !== 'RIFF' ||
    b.toString('latin1', 8, 12) !== 'WEBP'
  )
    return undefined;
  const chunk = b.toString('latin1', 12, 16);
  if (chunk === 'VP8 ') {
    // Frame tag (3 bytes), start code 9d 01 2a, then 14-bit width and height.
    if (b[23] !== 0x9d || b[24] !== 0x01 || b[25] !== 0x2a) return undefined;
    return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
  }
  if (chunk === 'VP8L') {
    if (b[20] !== 0x2f) return undefined;
    const bits = b.readUInt32LE(21);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === 'VP8X') return { width: b.readUIntLE(24, 3) + 1, height: b.readUIntLE(27, 3) + 1 };
  return undefined;
}
