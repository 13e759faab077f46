// A synchronous PNG encoder for small opaque regions, on Node's own zlib: a PNG is a signature
// and three chunks (IHDR, IDAT = deflated rows each led by filter byte 0, IEND), each with a
// CRC-32. sharp only encodes asynchronously on its thread pool (and the encode workers add a
// second hop), which costs a small change more time than its encoding; a typed character or a
// blinking cursor is encoded here, on the spot, in tens of microseconds.
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
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bits per channel
  header[9] = 2; // colour type: RGB
  // Compression, filter and interlace methods: 0 (the only ones PNG defines, no interlace).
  return Buffer.concat([
    SIGNATURE,
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 1 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
