// Which of a stretch of drawing instructions still show at its end, so the file-following model
// and the reader's seeks can leave the rest undone: decoding every image the server sent was
// nearly all a recording costs, and a model caught up from the file is only ever looked at at
// the stretch's end (a keyframe, the end of the catch-up, the moment a seek asked for). Heavy scrolling overwrites each strip of the screen many
// times between keyframes, so most of its images never need decoding.
//
// How. A forward pass over the stretch, reading no pixels, follows each surface's size (as the
// model grows and sizes them) and which of its pixels are known opaque (what a copy OVER from
// them makes opaque), and notes for each image and copy the rectangle it writes, whether it
// replaces every pixel there (SRC, an image whose format has no alpha, a copy OVER from opaque
// pixels) and what it reads. A backward pass then walks from the end, where every pixel of every
// surface is needed: a draw that writes no pixel still needed is skipped; one that does is kept,
// and if it replaces what it covers those pixels are no longer needed before it; a copy kept
// makes needed the source pixels of the destination pixels that were (a scroll's rows are needed
// only as long as they end up on screen). Both kept per pixel, one byte each, with native fills
// and searches. Anything the passes cannot follow — an image whose header does not say its size
// — makes the whole stretch draw as before. A `transfer` (rare) is always drawn and needs all it
// reads; fills, resizes and disposals are always drawn (a resize or disposal makes every earlier
// pixel of that surface needed, erring towards drawing).
//
// A skipped draw still takes effect on the model's geometry (DisplayModel.skip: surfaces grow,
// the mask taint follows copies), so sizes and taint stay exactly as if it had been drawn.
import type { GuacInstruction } from '@overlay-companion/guac';
import { withoutAlpha, type DisplayModel } from './displayModel.js';
import { HEADER_BASE64_CHARS, imageSize, type ImageSize } from './imageHeader.js';
import {
  clip,
  CompositeMask,
  copyGeometry,
  grownSize,
  isEmpty,
  opaque,
  union,
  sizeAllowed,
  type Rect,
  type Surface,
} from './layers.js';

/** Per instruction index: skip it (a copy: null; an image's `end`: its size). */
export type Skips = Map<number, ImageSize | null>;

// Buffer#fill validates its arguments in JS on every call; the typed array's own is far cheaper
// for the many short rows filled here.
function fillBytes(bytes: Uint8Array, value: number, start: number, end: number): void {
  Uint8Array.prototype.fill.call(bytes, value, start, end);
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
class Needed {
  readonly bits: Buffer;

  constructor(
    readonly width: number,
    private readonly height: number,
  ) {
    this.bits = Buffer.alloc(width * height, 1);
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
}

/** A draw the backward pass weighs (or, `size`/`dispose`, a surface starting over). */
type Step =
  | {
      at: number;
      kind: 'draw';
      dst: number;
      written: Rect;
      /** Every pixel of `written` is replaced, whatever was there. */
      replaces: boolean;
      /** A copy: what it reads. */
      src?: { index: number; read: Rect };
      /** An image's size (the model needs it to skip the image). */
      size?: ImageSize;
    }
  | { at: number; kind: 'reads'; src: number; read: Rect }
  | { at: number; kind: 'restart'; index: number };

/** A surface's size and which of its pixels are known opaque (1), as the forward pass goes. */
interface Shape {
  width: number;
  height: number;
  opaque: Buffer;
}

function shapeOf(surface: Surface): Shape {
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
function reshaped(old: Shape | undefined, width: number, height: number): Shape {
  const known = Buffer.alloc(width * height);
  if (old !== undefined) {
    const w = Math.min(width, old.width);
    for (let y = 0; y < Math.min(height, old.height); y++)
      old.opaque.copy(known, y * width, y * old.width, y * old.width + w);
  }
  return { width, height, opaque: known };
}

/** Marks `r` (inside `shape`) opaque (1) or not known opaque (0). */
function mark(shape: Shape, r: Rect, value: 0 | 1): void {
  for (let y = r.y; y < r.y + r.height; y++) {
    const at = y * shape.width + r.x;
    fillBytes(shape.opaque, value, at, at + r.width);
  }
}

/** Whether every pixel of `r` (inside `shape`) is known opaque. */
function allOpaque(shape: Shape, r: Rect): boolean {
  if (isEmpty(r)) return false;
  for (let y = r.y; y < r.y + r.height; y++) {
    const at = y * shape.width + r.x;
    if (holds(shape.opaque, 0, at, at + r.width)) return false;
  }
  return true;
}

const int = (value: string | undefined): number => {
  const n = Number(value);
  return Number.isFinite(n) ? Math.trunc(n) : 0;
};

/**
 * The instructions of `stretch` (applied in order to a model whose surfaces are `surfaces`) that
 * need not be drawn for every surface to be exact after the last of them.
 */
export function invisibleDraws(
  stretch: readonly GuacInstruction[],
  surfaces: ReadonlyMap<number, Surface>,
): Skips {
  const followed = forward(stretch, surfaces);
  const skips: Skips = new Map();
  if (followed === undefined) return skips;
  const { steps, largest } = followed;
  const needed = new Map<number, Needed>();
  const of = (index: number): Needed => {
    let n = needed.get(index);
    if (n === undefined) {
      const { width, height } = largest.get(index) ?? { width: 0, height: 0 };
      needed.set(index, (n = new Needed(width, height)));
    }
    return n;
  };
  for (let i = steps.length - 1; i >= 0; i--) {
    const step = steps[i]!;
    if (step.kind === 'restart') {
      needed.delete(step.index);
      continue;
    }
    if (step.kind === 'reads') {
      of(step.src).set(step.read, 1);
      continue;
    }
    const dst = of(step.dst);
    if (isEmpty(step.written) || !dst.touches(step.written)) {
      skips.set(step.at, step.size ?? null);
      continue;
    }
    // A copy needs of its source only what it puts where something is needed: read from the
    // destination's bits as they were before the copy replaced them.
    const src = step.src === undefined ? undefined : of(step.src.index);
    if (step.src !== undefined && src !== undefined && src !== dst)
      src.addFrom(step.src.read, dst, step.written);
    const before = src === dst ? dst.snapshot(step.written) : undefined;
    if (step.replaces) dst.set(step.written, 0);
    if (step.src !== undefined && before !== undefined)
      dst.addFrom(step.src.read, before, { ...step.written, y: step.written.y - before.y });
  }
  return skips;
}

/**
 * Applies `stretch` to `model` drawing only what is still visible at its end (geometry for the
 * rest): every surface then is exactly what drawing everything would have made it.
 */
export async function applyVisible(
  model: DisplayModel,
  stretch: readonly GuacInstruction[],
): Promise<void> {
  const skips = invisibleDraws(stretch, model.surfaces);
  for (let at = 0; at < stretch.length; at++) {
    const instruction = stretch[at]!;
    const size = skips.get(at);
    const pending = size === undefined ? model.apply(instruction) : model.skip(instruction, size);
    if (pending) await pending;
  }
}

/**
 * The forward pass: the steps, and each surface's largest size in the stretch; undefined when
 * the stretch cannot be followed.
 */
function forward(
  stretch: readonly GuacInstruction[],
  surfaces: ReadonlyMap<number, Surface>,
): { steps: Step[]; largest: Map<number, { width: number; height: number }> } | undefined {
  const shapes = new Map<number, Shape>();
  const largest = new Map<number, { width: number; height: number }>();
  const grown = (index: number, shape: Shape): void => {
    const was = largest.get(index);
    largest.set(index, {
      width: Math.max(was?.width ?? 0, shape.width),
      height: Math.max(was?.height ?? 0, shape.height),
    });
  };
  for (const [index, surface] of surfaces) {
    const shape = shapeOf(surface);
    shapes.set(index, shape);
    grown(index, shape);
  }
  const markOn = (index: number, r: Rect, value: 0 | 1): void => {
    const shape = shapes.get(index);
    if (shape !== undefined && !isEmpty(r)) mark(shape, clip(r, shape.width, shape.height), value);
  };
  // As DisplayModel.surfaceFor (layers.ts grownSize: the one rule of when a surface grows).
  const surfaceFor = (index: number, r: Rect): Shape => {
    const current = shapes.get(index);
    const size = grownSize(index, current, r);
    if (size === undefined && current !== undefined) return current;
    const shape = reshaped(current, size?.width ?? 0, size?.height ?? 0);
    shapes.set(index, shape);
    grown(index, shape);
    return shape;
  };
  const images = new Map<
    number,
    { layer: number; mask: number; mimetype: string; x: number; y: number; head: string }
  >();
  const paths = new Map<number, Rect[]>();
  const steps: Step[] = [];
  for (let at = 0; at < stretch.length; at++) {
    const { opcode, args } = stretch[at]!;
    const n = (i: number): number => int(args[i]);
    switch (opcode) {
      case 'size': {
        const [index, w, h] = [n(0), n(1), n(2)];
        if (!sizeAllowed(w, h)) break;
        const shape = reshaped(shapes.get(index), w, h);
        shapes.set(index, shape);
        grown(index, shape);
        steps.push({ at, kind: 'restart', index });
        break;
      }
      case 'dispose':
        shapes.delete(n(0));
        paths.delete(n(0));
        steps.push({ at, kind: 'restart', index: n(0) });
        break;
      case 'img':
        images.set(n(0), {
          mask: n(1),
          layer: n(2),
          mimetype: args[3] ?? '',
          x: n(4),
          y: n(5),
          head: '',
        });
        break;
      case 'blob': {
        const image = images.get(n(0));
        // Only the header's characters (a blob is as long as the header's budget: decoding
        // whole blobs was a fifth of this pass).
        if (image !== undefined && image.head.length < HEADER_BASE64_CHARS)
          image.head += (args[1] ?? '').slice(0, HEADER_BASE64_CHARS - image.head.length);
        break;
      }
      case 'end': {
        const image = images.get(n(0));
        if (image === undefined) break;
        images.delete(n(0));
        // Whole base64 quanta only (a blob may end mid-quantum).
        const head = Buffer.from(image.head.slice(0, image.head.length & ~3), 'base64');
        const size = imageSize(image.mimetype, head);
        if (size === undefined) return undefined;
        const rect = { x: image.x, y: image.y, ...size };
        const shape = surfaceFor(image.layer, rect);
        const written = clip(rect, shape.width, shape.height);
        const noAlpha = withoutAlpha(image.mimetype, head);
        const replaces = noAlpha || image.mask === CompositeMask.SRC;
        markOn(image.layer, written, noAlpha ? 1 : 0);
        steps.push({ at, kind: 'draw', dst: image.layer, written, replaces, size });
        break;
      }
      case 'copy':
      case 'transfer': {
        const srcIndex = n(0);
        const src = shapes.get(srcIndex);
        if (src === undefined) break;
        const from = { x: n(1), y: n(2), width: n(3), height: n(4) };
        const dstIndex = n(6);
        const dst = surfaceFor(dstIndex, {
          x: n(7),
          y: n(8),
          width: from.width,
          height: from.height,
        });
        const { read, to } = copyGeometry(src, from, dst, n(7), n(8));
        if (opcode === 'transfer') {
          // Always drawn (it is rare): what it reads is needed; its result depends on the
          // destination too, and is opaque.
          if (!isEmpty(to)) steps.push({ at, kind: 'reads', src: srcIndex, read });
          markOn(dstIndex, to, 1);
          break;
        }
        const sourceOpaque = allOpaque(src, read);
        const replaces = n(5) === CompositeMask.SRC || sourceOpaque;
        markOn(dstIndex, to, sourceOpaque ? 1 : 0);
        steps.push({
          at,
          kind: 'draw',
          dst: dstIndex,
          written: to,
          replaces,
          src: { index: srcIndex, read },
        });
        break;
      }
      case 'rect': {
        const rect = { x: n(1), y: n(2), width: n(3), height: n(4) };
        const path = paths.get(n(0));
        if (path) path.push(rect);
        else paths.set(n(0), [rect]);
        break;
      }
      case 'cfill': {
        // Always drawn; the model's fillRects: an opaque colour that is not a clearing mask
        // replaces with opaque pixels, anything else may leave them translucent.
        const index = n(1);
        const path = paths.get(index) ?? [];
        paths.delete(index);
        if (path.length === 0) break;
        let bounds: Rect | undefined;
        for (const r of path) bounds = union(bounds, r);
        if (bounds === undefined) break;
        const shape = surfaceFor(index, bounds);
        const mask = n(0);
        const alpha = n(5);
        const clears =
          (mask === CompositeMask.ROUT && alpha === 255) ||
          (mask === CompositeMask.RATOP && alpha === 0);
        for (const r of path) {
          const area = clip(r, shape.width, shape.height);
          markOn(index, area, !clears && alpha === 255 ? 1 : 0);
        }
        break;
      }
      default:
        break;
    }
  }
  return { steps, largest };
}
