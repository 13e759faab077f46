// Synchronous PNG encoders on Node's own zlib: a PNG is a signature and a few chunks (IHDR,
// PLTE for a palette, IDAT = deflated rows each led by filter byte 0, IEND), each with a CRC-32.
// - RGB, for small opaque regions: sharp only encodes asynchronously on its thread pool (and the
//   encode workers add a second hop), which costs a small change more time than its encoding; a
//   typed character or a blinking cursor is encoded here, on the spot, in tens of microseconds.
// - Indexed (a palette of at most 256 colours), for the encode workers: desktop text and UI use
//   few colours, and one byte per pixel deflates in a third of the time lossless WebP takes
//   (measured on a scrolling xterm: 1280×228 in 1.8 ms against 4.4 ms, 1.7× WebP's bytes and a
//   sixth of RGB PNG's). Anything with more colours is left to sharp.
import { crc32, deflateSync } from 'node:zlib';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function chunk(type: string, data: Buffer): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/** Tight RGBA pixels (alpha ignored: desktop pixels are opaque) as an RGB PNG. */
export function encodePngSync(rgba: Uint8Array, width: number, height: number): Buffer {
  const rowBytes = width * 3 + 1;
  const raw = Buffer.alloc(rowBytes * height);
  for (let y = 0, o = 0; y < height; y++) {
    let p = y * rowBytes + 1; // byte 0 of each row: filter type 0 (none)
    for (let x = 0; x < width; x++, o += 4) {
      raw[p++] = rgba[o]!;
      raw[p++] = rgba[o + 1]!;
      raw[p++] = rgba[o + 2]!;
    }
  }
  return pngFile(width, height, COLOUR_RGB, raw, 1);
}

const COLOUR_RGB = 2;
const COLOUR_INDEXED = 3;

/** The PNG of 8-bit `raw` rows (each led by its filter byte), with `palette` when indexed. */
function pngFile(
  width: number,
  height: number,
  colourType: number,
  raw: Buffer,
  level: number,
  palette?: Buffer,
): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bits per channel (or per palette index)
  header[9] = colourType;
  // Compression, filter and interlace methods: 0 (the only ones PNG defines, no interlace).
  return Buffer.concat([
    SIGNATURE,
    chunk('IHDR', header),
    ...(palette === undefined ? [] : [chunk('PLTE', palette)]),
    chunk('IDAT', deflateSync(raw, { level })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * zlib level of indexed PNGs. 3 rather than zlib's default 6: measured on a scrolling xterm
 * (3840×136 pixels of text) 1.46 against 2.39 ms for 38% more bytes (21.5 against 15.6 kB),
 * and at 1280 pixels wide 0.57 against 0.84 ms; our bytes stay a fraction of guacd's on the
 * same screen (bench/stream.ts), while the encoders are most of the gateway's CPU.
 */
export const INDEXED_PNG_LEVEL = 3;

/** Palette colours at most (PNG's 8-bit indexed colour). */
const MAX_COLOURS = 256;
/** Open-addressing table of colour → palette index; a quarter full at most. */
const TABLE_BITS = 10;
const tableKeys = new Int32Array(1 << TABLE_BITS);
const tableIndexes = new Uint8Array(1 << TABLE_BITS);

/**
 * Tight RGBA pixels (alpha ignored) as an indexed PNG, deflated at `level`; undefined as soon as
 * a 257th colour turns up (the caller encodes another way).
 */
export function encodeIndexedPngSync(
  rgba: Uint8Array,
  width: number,
  height: number,
  level = INDEXED_PNG_LEVEL,
): Buffer | undefined {
  const pixels = new Uint32Array(rgba.buffer, rgba.byteOffset, width * height);
  tableKeys.fill(0); // 0 never is a key: every key has its alpha bits set
  const palette: number[] = [];
  const raw = Buffer.allocUnsafe((width + 1) * height);
  let last = 0;
  let lastIndex = 0;
  const mask = (1 << TABLE_BITS) - 1;
  for (let y = 0, i = 0, o = 0; y < height; y++) {
    raw[o++] = 0; // filter type 0 (none)
    for (let x = 0; x < width; x++, i++) {
      const pixel = pixels[i]! | 0xff000000;
      if (pixel !== last) {
        // Runs of one colour are the common case: look up only where the colour changes.
        let slot = Math.imul(pixel, 0x9e3779b1) >>> (32 - TABLE_BITS);
        for (;;) {
          const key = tableKeys[slot]!;
          if (key === pixel) {
            lastIndex = tableIndexes[slot]!;
            break;
          }
          if (key === 0) {
            if (palette.length === MAX_COLOURS) return undefined;
            tableKeys[slot] = pixel;
            tableIndexes[slot] = lastIndex = palette.length;
            palette.push(pixel);
            break;
          }
          slot = (slot + 1) & mask;
        }
        last = pixel;
      }
      raw[o++] = lastIndex;
    }
  }
  const plte = Buffer.alloc(palette.length * 3);
  palette.forEach((pixel, j) => {
    // Little-endian words: R is the low byte.
    plte[j * 3] = pixel & 0xff;
    plte[j * 3 + 1] = (pixel >>> 8) & 0xff;
    plte[j * 3 + 2] = (pixel >>> 16) & 0xff;
  });
  return pngFile(width, height, COLOUR_INDEXED, raw, level, plte);
}
