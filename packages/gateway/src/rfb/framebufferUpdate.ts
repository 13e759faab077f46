// Reads one FramebufferUpdate message (after its type byte) and applies every rectangle to the
// framebuffer: Raw, CopyRect, ZRLE, and the DesktopSize, ExtendedDesktopSize, Cursor and
// LastRect pseudo-encodings. Any rectangle that does not fit the framebuffer, or whose payload
// is larger than such a rectangle could need, is a protocol error — nothing is written.
import type { ByteReader } from './byteReader.js';
import type { RfbScreen } from './clientMessages.js';
import { Encoding } from './encodings.js';
import { protocolError } from './errors.js';
import type { Framebuffer } from './framebuffer.js';
import { checkSize } from './handshake.js';
import type { ZrleDecoder } from './zrle.js';

export interface RfbRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Straight RGBA, alpha taken from the cursor bitmask (0 or 255). */
export interface RfbCursor {
  hotX: number;
  hotY: number;
  width: number;
  height: number;
  rgba: Buffer;
}

/** Cursors larger than this on either side are refused (real ones are 16–128 px). */
const MAX_CURSOR_SIDE = 512;
const MAX_SCREENS = 64;

export interface UpdateContext {
  reader: ByteReader;
  fb: Framebuffer;
  zrle: ZrleDecoder;
  limits: { maxPixels: number; maxSide: number };
  /** Milliseconds spent decoding pixel data (inflate included, network waits excluded). */
  stats: {
    decodeMs: number;
    rects: number;
    updates: number;
    raw: number;
    copyRect: number;
    zrle: number;
  };
  rect(rect: RfbRect): void;
  copy(copy: { srcX: number; srcY: number } & RfbRect): void;
  /** The framebuffer was reallocated to a new size (already done). */
  resized(width: number, height: number): void;
  /** ExtendedDesktopSize arrived: the server accepts SetDesktopSize; `screens` is its layout. */
  screens(screens: RfbScreen[]): void;
  cursor(cursor: RfbCursor): void;
}

export async function readFramebufferUpdate(ctx: UpdateContext): Promise<void> {
  const { reader } = ctx;
  const header = await reader.read(3);
  const count = header.readUInt16BE(1);
  ctx.stats.updates++;
  for (let i = 0; i < count; i++) {
    const rh = await reader.read(12);
    const x = rh.readUInt16BE(0);
    const y = rh.readUInt16BE(2);
    const width = rh.readUInt16BE(4);
    const height = rh.readUInt16BE(6);
    const encoding = rh.readInt32BE(8);
    if (encoding === Encoding.LastRect) return;
    await readRect(ctx, x, y, width, height, encoding);
  }
}

async function readRect(
  ctx: UpdateContext,
  x: number,
  y: number,
  width: number,
  height: number,
  encoding: number,
): Promise<void> {
  const { reader, fb } = ctx;
  const inside = () => {
    if (!fb.contains(x, y, width, height)) {
      throw protocolError(
        `rectangle ${width}x${height}+${x}+${y} (encoding ${encoding}) lies outside the ${fb.width}x${fb.height} framebuffer`,
      );
    }
  };
  switch (encoding) {
    case Encoding.Raw: {
      inside();
      // Written as the bytes arrive (views of the socket's chunks): a large rectangle is never
      // gathered into a buffer of its own first.
      const size = width * height * 4;
      for (let offset = 0; offset < size;) {
        const data = await reader.readSome(size - offset);
        const start = performance.now();
        fb.writeRawPart(data, x, y, width, offset);
        ctx.stats.decodeMs += performance.now() - start;
        offset += data.length;
      }
      ctx.stats.rects++;
      ctx.stats.raw++;
      ctx.rect({ x, y, width, height });
      return;
    }
    case Encoding.CopyRect: {
      inside();
      const src = await reader.read(4);
      const srcX = src.readUInt16BE(0);
      const srcY = src.readUInt16BE(2);
      if (!fb.contains(srcX, srcY, width, height)) {
        throw protocolError(
          `CopyRect source ${width}x${height}+${srcX}+${srcY} lies outside the ${fb.width}x${fb.height} framebuffer`,
        );
      }
      fb.copy(srcX, srcY, x, y, width, height);
      ctx.stats.rects++;
      ctx.stats.copyRect++;
      ctx.copy({ srcX, srcY, x, y, width, height });
      return;
    }
    case Encoding.ZRLE: {
      inside();
      const length = await reader.u32();
      // Worst case is every tile raw: 3 bytes a pixel plus headers; deflate adds a little.
      const limit = width * height * 5 + 65536;
      if (length > limit)
        throw protocolError(`ZRLE rectangle ${width}x${height} claims ${length} bytes of data`);
      const compressed = await reader.read(length);
      const start = performance.now();
      // Inflate even an empty rectangle's bytes: they belong to the connection's zlib stream.
      await ctx.zrle.decode(compressed, x, y, width, height, {
        pixels: fb.pixels,
        stride: fb.width,
      });
      ctx.stats.decodeMs += performance.now() - start;
      ctx.stats.rects++;
      ctx.stats.zrle++;
      if (width > 0 && height > 0) ctx.rect({ x, y, width, height });
      return;
    }
    case Encoding.DesktopSize: {
      checkSize(width, height, ctx.limits);
      fb.resize(width, height);
      ctx.resized(width, height);
      return;
    }
    case Encoding.ExtendedDesktopSize:
      return readExtendedDesktopSize(ctx, x, y, width, height);
    case Encoding.Cursor:
      return readCursor(ctx, x, y, width, height);
    default:
      // An encoding we never offered: its length is unknown, so the stream cannot be resynced.
      throw protocolError(`rectangle in encoding ${encoding}, which this client did not ask for`);
  }
}

async function readExtendedDesktopSize(
  ctx: UpdateContext,
  reason: number,
  status: number,
  width: number,
  height: number,
): Promise<void> {
  const head = await ctx.reader.read(4);
  const count = head[0]!;
  if (count > MAX_SCREENS) throw protocolError(`ExtendedDesktopSize with ${count} screens`);
  const data = await ctx.reader.read(count * 16);
  // reason 1 = reply to our own SetDesktopSize; a non-zero status means it was refused and the
  // remaining fields are undefined, so leave the framebuffer alone.
  if (reason === 1 && status !== 0) {
    ctx.screens([]);
    return;
  }
  const screens: RfbScreen[] = [];
  for (let i = 0; i < count; i++) {
    const at = i * 16;
    screens.push({
      id: data.readUInt32BE(at),
      x: data.readUInt16BE(at + 4),
      y: data.readUInt16BE(at + 6),
      width: data.readUInt16BE(at + 8),
      height: data.readUInt16BE(at + 10),
      flags: data.readUInt32BE(at + 12),
    });
  }
  ctx.screens(screens);
  if (width !== ctx.fb.width || height !== ctx.fb.height) {
    checkSize(width, height, ctx.limits);
    ctx.fb.resize(width, height);
    ctx.resized(width, height);
  }
}

async function readCursor(
  ctx: UpdateContext,
  hotX: number,
  hotY: number,
  width: number,
  height: number,
): Promise<void> {
  if (width > MAX_CURSOR_SIDE || height > MAX_CURSOR_SIDE)
    throw protocolError(`cursor of ${width}x${height} pixels`);
  const maskRow = (width + 7) >> 3;
  const pixels = await ctx.reader.read(width * height * 4);
  const mask = await ctx.reader.read(maskRow * height);
  const rgba = Buffer.alloc(width * height * 4);
  for (let row = 0; row < height; row++) {
    for (let col = 0; col < width; col++) {
      const o = (row * width + col) * 4;
      rgba[o] = pixels[o]!;
      rgba[o + 1] = pixels[o + 1]!;
      rgba[o + 2] = pixels[o + 2]!;
      rgba[o + 3] = (mask[row * maskRow + (col >> 3)]! >> (7 - (col & 7))) & 1 ? 255 : 0;
    }
  }
  // Servers clamp the hotspot themselves, but a hostile one might not.
  ctx.cursor({
    hotX: Math.min(hotX, Math.max(0, width - 1)),
    hotY: Math.min(hotY, Math.max(0, height - 1)),
    width,
    height,
    rgba,
  });
}
