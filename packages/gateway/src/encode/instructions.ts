// Builds the Guacamole drawing instructions the gateway sends (as opcode + args tuples, so the
// connection layer does the wire encoding in one place): images (PNG, JPEG, WebP) split into
// blobs the way guacd does, solid fills, moves (`copy`), the cursor, and clipboard text streams.
import type { SolidGroup } from './solidFill.js';

export type OutInstruction = readonly [opcode: string, ...args: (string | number)[]];

/** guacd splits stream data into blobs of at most 6048 raw bytes (8064 base64 characters). */
export const BLOB_RAW_BYTES = 6048;

/** Composite operations (channel masks) from the Guacamole protocol. */
export const CompositeMask = { SRC: 0xc, OVER: 0xe } as const;

/**
 * The default layer (the visible desktop), the buffer layer the cursor image lives in, and the
 * buffer moves go through (moveInstructions).
 */
export const DEFAULT_LAYER = 0;
export const CURSOR_BUFFER = -1;
export const MOVE_BUFFER = -2;

export function blobInstructions(stream: number, data: Buffer): OutInstruction[] {
  const out: OutInstruction[] = [];
  for (let offset = 0; offset < data.length; offset += BLOB_RAW_BYTES) {
    out.push(['blob', stream, data.subarray(offset, offset + BLOB_RAW_BYTES).toString('base64')]);
  }
  out.push(['end', stream]);
  return out;
}

export function imageInstructions(
  stream: number,
  layer: number,
  x: number,
  y: number,
  mimetype: string,
  data: Buffer,
  // Desktop pixels are opaque, so OVER draws exactly what SRC would. SRC is not safe on the
  // visible layer: guacamole-common-js maps it to the canvas mode `copy`, which in Chromium
  // clears everything outside the drawn rectangle (guacd uses OVER for the same reason).
  mask: number = CompositeMask.OVER,
): OutInstruction[] {
  return [['img', stream, mask, layer, mimetype, x, y], ...blobInstructions(stream, data)];
}

export function pngInstructions(
  stream: number,
  layer: number,
  x: number,
  y: number,
  png: Buffer,
  mask: number = CompositeMask.OVER,
): OutInstruction[] {
  return imageInstructions(stream, layer, x, y, 'image/png', png, mask);
}

/**
 * Solid rectangles on the visible layer: each colour's rectangles become one path (`rect`s)
 * filled at once (`cfill`, opaque, OVER like every other draw on that layer).
 */
export function fillInstructions(groups: readonly SolidGroup[]): OutInstruction[] {
  const out: OutInstruction[] = [];
  for (const { colour, rects } of groups) {
    for (const r of rects) out.push(['rect', DEFAULT_LAYER, r.x, r.y, r.width, r.height]);
    const [red, green, blue] = [colour & 0xff, (colour >>> 8) & 0xff, (colour >>> 16) & 0xff];
    out.push(['cfill', CompositeMask.OVER, DEFAULT_LAYER, red, green, blue, 255]);
  }
  return out;
}

export interface CopyOp {
  srcX: number;
  srcY: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * A move on the visible layer, as two `copy` instructions through MOVE_BUFFER: out to the
 * buffer, then back to the destination. guacamole-common-js runs a copy within one layer as a
 * canvas drawing onto itself, which makes Chromium snapshot the whole canvas first — measured
 * in headless Chromium at 9 ms per copy for 1280×800 and 74 ms for 3840×1080 — while copies
 * between two canvases cost only the pixels moved. Each move still reads what earlier ones
 * wrote, so a frame's moves keep their order's meaning.
 */
export function moveInstructions(op: CopyOp): OutInstruction[] {
  // Opaque pixels: OVER draws what SRC would (see imageInstructions on SRC).
  return [
    [
      'copy',
      DEFAULT_LAYER,
      op.srcX,
      op.srcY,
      op.width,
      op.height,
      CompositeMask.OVER,
      MOVE_BUFFER,
      op.srcX,
      op.srcY,
    ],
    [
      'copy',
      MOVE_BUFFER,
      op.srcX,
      op.srcY,
      op.width,
      op.height,
      CompositeMask.OVER,
      DEFAULT_LAYER,
      op.x,
      op.y,
    ],
  ];
}

/** Sizes MOVE_BUFFER to the screen, so moves never make the browser grow it piecemeal. */
export function moveBufferSize(width: number, height: number): OutInstruction {
  return ['size', MOVE_BUFFER, width, height];
}

/**
 * The cursor: its image is drawn into buffer layer -1 (sized first, replaced with SRC so
 * transparent pixels stay transparent), then `cursor` points the browser at that buffer.
 */
export function cursorInstructions(
  stream: number,
  hotX: number,
  hotY: number,
  width: number,
  height: number,
  png: Buffer,
): OutInstruction[] {
  return [
    ['size', CURSOR_BUFFER, width, height],
    ...pngInstructions(stream, CURSOR_BUFFER, 0, 0, png, CompositeMask.SRC),
    ['cursor', hotX, hotY, CURSOR_BUFFER, 0, 0, width, height],
  ];
}

export function clipboardInstructions(stream: number, text: string): OutInstruction[] {
  return [
    ['clipboard', stream, 'text/plain'],
    ...blobInstructions(stream, Buffer.from(text, 'utf8')),
  ];
}
