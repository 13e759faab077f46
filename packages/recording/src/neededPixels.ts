// The per-pixel maps the visible-draw analysis (visibleDraws.ts) keeps, one byte a pixel: which
// pixels of a surface are still needed (walking a stretch backwards), and which are known opaque
// (walking it forwards). Native fills and searches only: the analysis asks these of hundreds of
// rows per scroll frame.
import { clip, isEmpty, opaque, type Rect, type Surface } from './layers.js';

// Buffer#fill validates its arguments in JS on every call; the typed array's own is far cheaper
// for the many short rows filled here. A row of a rectangle clipped away to nothing ends before it
// starts, possibly below 0, which the typed array's fill would count from the array's end.
function fillBytes(bytes: Uint8Array, value: number, start: number, end: number): void {
  if (end > start) Uint8Array.prototype.fill.call(bytes, value, start, end);
}

/**
 * Whether `bytes[start, end)` holds `value`: a native memchr (Buffer#indexOf) bounded by a
 * sentinel written at `end` for the call, so no view of the row is made (the analysis asks this
 * of hundreds of rows per scroll frame, and allocating a view per row was a third of its time).
 */
function holds(bytes: Buffer, value: 0 | 1, start: number, end: number): boolean {
  if (end <= start) return false;
  if (end >= bytes.length) return bytes.indexOf(value, start) !== -1;
  const saved = bytes[end]!;
  bytes[end] = value;
  const found = bytes.indexOf(value, start);
  bytes[end] = saved;
  return found < end;
}

/** A copy's rows of needed bits, snapshotted when source and destination are one surface. */
let scratch = Buffer.alloc(0);

/** Which pixels of one surface are still needed (1), for a surface at most `width`×`height`. */
export class Needed {
  readonly bits: Buffer;

  constructor(
    readonly width: number,
    private readonly height: number,
    value: 0 | 1 = 1,
  ) {
    this.bits = Buffer.alloc(width * height, value);
  }

  /** Whether any pixel of `r` is still needed. */
  touches(r: Rect): boolean {
    const area = clip(r, this.width, this.height);
    for (let y = area.y; y < area.y + area.height; y++) {
      const at = y * this.width + area.x;
      if (holds(this.bits, 1, at, at + area.width)) return true;
    }
    return false;
  }

  /**
   * Marks needed the pixels of `r` (inside this surface) whose counterpart in `from`'s `source`
   * (the same size, inside `from`) is needed: a copy's source, for what it puts where something
   * is needed. `from` may be this surface's own bits, taken before the copy's destination was
   * cleared (snapshot()).
   */
  addFrom(r: Rect, from: { bits: Buffer; width: number }, source: Rect): void {
    const bits = from.bits;
    for (let y = 0; y < r.height; y++) {
      const src = (source.y + y) * from.width + source.x;
      if (!holds(bits, 1, src, src + r.width)) continue;
      const at = (r.y + y) * this.width + r.x;
      if (!holds(bits, 0, src, src + r.width)) fillBytes(this.bits, 1, at, at + r.width);
      else for (let x = 0; x < r.width; x++) if (bits[src + x] === 1) this.bits[at + x] = 1;
    }
  }

  /** The rows `r` spans, copied (one block), with the width to read them by. */
  snapshot(r: Rect): { bits: Buffer; width: number; y: number } {
    const start = r.y * this.width;
    const length = r.height * this.width;
    if (scratch.length < length) scratch = Buffer.alloc(Math.max(length, scratch.length * 2));
    this.bits.copy(scratch, 0, start, start + length);
    return { bits: scratch, width: this.width, y: r.y };
  }

  /** Whether the pixels of `r` are needed (1) or not (0). */
  set(r: Rect, value: 0 | 1): void {
    const area = clip(r, this.width, this.height);
    for (let y = area.y; y < area.y + area.height; y++) {
      const at = y * this.width + area.x;
      fillBytes(this.bits, value, at, at + area.width);
    }
  }

  /** Only the pixels inside a `width`×`height` surface stay needed (a resize drops the rest). */
  keepWithin(width: number, height: number): void {
    this.set({ x: width, y: 0, width: this.width, height: this.height }, 0);
    this.set({ x: 0, y: height, width: this.width, height: this.height }, 0);
  }
}

/** A surface's size and which of its pixels are known opaque (1), as the forward pass goes. */
export interface Shape {
  width: number;
  height: number;
  opaque: Buffer;
}

export function shapeOf(surface: Surface): Shape {
  const { width, height, rgba } = surface;
  const known = Buffer.alloc(width * height);
  if (width > 0 && height > 0 && opaque(surface, { x: 0, y: 0, width, height })) known.fill(1);
  else if (rgba.byteOffset % 4 === 0) {
    // A pixel at a time as one little-endian word: alpha is its top byte.
    const words = new Uint32Array(rgba.buffer, rgba.byteOffset, width * height);
    for (let i = 0; i < known.length; i++) known[i] = words[i]! >>> 24 === 255 ? 1 : 0;
  } else for (let i = 0; i < known.length; i++) known[i] = rgba[i * 4 + 3] === 255 ? 1 : 0;
  return { width, height, opaque: known };
}

/** `old` as a `width`×`height` surface: the overlap kept, the rest transparent (resized()). */
export function reshaped(old: Shape | undefined, width: number, height: number): Shape {
  const known = Buffer.alloc(width * height);
  if (old !== undefined) {
    const w = Math.min(width, old.width);
    for (let y = 0; y < Math.min(height, old.height); y++)
      old.opaque.copy(known, y * width, y * old.width, y * old.width + w);
  }
  return { width, height, opaque: known };
}

/** Marks `r` (inside `shape`) opaque (1) or not known opaque (0). */
export function mark(shape: Shape, r: Rect, value: 0 | 1): void {
  for (let y = r.y; y < r.y + r.height; y++) {
    const at = y * shape.width + r.x;
    fillBytes(shape.opaque, value, at, at + r.width);
  }
}

/** Whether every pixel of `r` (inside `shape`) is known opaque. */
export function allOpaque(shape: Shape, r: Rect): boolean {
  if (isEmpty(r)) return false;
  for (let y = r.y; y < r.y + r.height; y++) {
    const at = y * shape.width + r.x;
    if (holds(shape.opaque, 0, at, at + r.width)) return false;
  }
  return true;
}
