// Which of a stretch of drawing instructions still show at its end, so a model replayed from the
// file (the reader's seeks) can leave the rest undone, and so a keyframe can name the draws that
// make its picture instead of holding its pixels (referenceKeyframes.ts): decoding every image the
// server sent was nearly all a recording costs, and a heavy scroll overwrites each strip of the
// screen many times between keyframes, so most of its images never need decoding.
//
// How. A forward pass over the stretch, reading no pixels, follows each surface's size (as the
// model grows and sizes them) and which of its pixels are known opaque (what a copy OVER from
// them makes opaque), and notes for each image, copy, transfer and fill the rectangles it
// writes, whether it replaces every pixel there (SRC, an image whose format has no alpha, a copy
// OVER from opaque pixels, an opaque or clearing fill) and what it reads. A backward pass then
// walks from the end, where every pixel of every surface is needed: a draw that writes no pixel
// still needed is skipped; one that does is kept, and if it replaces what it covers those pixels
// are no longer needed before it; a copy or transfer kept makes needed the source pixels of the
// destination pixels that were (a scroll's rows are needed only as long as they end up on
// screen). A resize needs before it only what it keeps; nothing of a surface is needed before it
// is disposed. Anything the passes cannot follow — an image whose header does not say its size —
// makes the whole stretch draw as before (neededPixels.ts holds the per-pixel maps).
//
// Two uses. invisibleDraws: the draws a model may skip (DisplayModel.skip still takes their
// geometry into account: surfaces grow, the mask taint follows copies); fills, resizes,
// transfers and disposals are always applied. referencedDraws: the instructions a model starting
// from the same surfaces must apply to end with the same ones when it applies nothing else — so
// also fills, transfers, resizes and disposals that change nothing left at the end are dropped,
// and draws that make or grow a surface are kept whatever they draw (the surface's size is
// theirs: a layer drawn on before any `size` keeps the size its first draw gave it).
//
// An image whose header says one size and that decodes to another, or not at all, makes the
// analysis wrong: applyVisible says so (DisplayModel.mismatches), and its callers then draw
// everything, exactly as the browser's display would.
import type { GuacInstruction } from '@overlay-companion/guac';
import { withoutAlpha, type DisplayModel } from './displayModel.js';
import { HEADER_BASE64_CHARS, imageSize, type ImageSize } from './imageHeader.js';
import {
  clip,
  CompositeMask,
  copyGeometry,
  grownSize,
  isEmpty,
  union,
  sizeAllowed,
  type Rect,
  type Surface,
} from './layers.js';
import { allOpaque, mark, Needed, reshaped, shapeOf, type Shape } from './neededPixels.js';

/** Per instruction index: skip it (a copy and the rest: null; an image's `end`: its size). */
export type Skips = Map<number, ImageSize | null>;

/** A draw the backward pass weighs, or a surface resized or disposed. */
type Step =
  | {
      at: number;
      kind: 'draw';
      dst: number;
      written: readonly Rect[];
      /** Every pixel of `written` is replaced, whatever was there. */
      replaces: boolean;
      /** It makes its surface (a layer or buffer drawn on before any `size`) or grows it. */
      grows: boolean;
      /** A copy or transfer: what it reads (written[0]'s counterpart). */
      src?: { index: number; read: Rect };
      /** An image's size (the model needs it to skip the image). */
      size?: ImageSize;
    }
  | { at: number; kind: 'size'; index: number; width: number; height: number }
  | { at: number; kind: 'dispose'; index: number };

const int = (value: string | undefined): number => {
  const n = Number(value);
  return Number.isFinite(n) ? Math.trunc(n) : 0;
};

/**
 * The instructions of `stretch` (applied in order to a model whose surfaces are `surfaces`) that
 * need not be drawn for every surface to be exact after the last of them (the model skipping
 * them with DisplayModel.skip).
 */
export function invisibleDraws(
  stretch: readonly GuacInstruction[],
  surfaces: ReadonlyMap<number, Surface>,
): Skips {
  const followed = forward(stretch, surfaces);
  if (followed === undefined) return new Map();
  const skips = backward(followed.steps, followed.largest, false);
  // Only images and copies are skipped by the model; the rest it always applies.
  for (const at of skips.keys()) {
    const opcode = stretch[at]!.opcode;
    if (opcode !== 'end' && opcode !== 'copy') skips.delete(at);
  }
  return skips;
}

/**
 * The instructions of `stretch` that end an image, a copy, a transfer, a fill, a resize or a
 * disposal which a model starting from `surfaces` must apply (with everything of theirs: an
 * image's `img` and `blob`s, a fill's `rect`s), and nothing else of the stretch, to end with every
 * surface exactly as applying all of it would; undefined when the stretch cannot be followed.
 */
export function referencedDraws(
  stretch: readonly GuacInstruction[],
  surfaces: ReadonlyMap<number, Surface>,
): Set<number> | undefined {
  const followed = forward(stretch, surfaces);
  if (followed === undefined) return undefined;
  const skips = backward(followed.steps, followed.largest, true);
  dropUnusedGeometry(followed.steps, skips, new Set(surfaces.keys()));
  return new Set(followed.steps.filter((step) => !skips.has(step.at)).map((step) => step.at));
}

/**
 * Applies `stretch` to `model` drawing only what is still visible at its end (geometry for the
 * rest): every surface then is exactly what drawing everything would have made it. Returns false
 * when an image drawn decoded to another size than its header said (or not at all): the model
 * may then differ, and the caller must draw the stretch again in full from where it started.
 */
export async function applyVisible(
  model: DisplayModel,
  stretch: readonly GuacInstruction[],
): Promise<boolean> {
  const skips = invisibleDraws(stretch, model.surfaces);
  const mismatches = model.mismatches;
  for (let at = 0; at < stretch.length; at++) {
    const instruction = stretch[at]!;
    const size = skips.get(at);
    const pending = size === undefined ? model.apply(instruction) : model.skip(instruction, size);
    if (pending) await pending;
  }
  return skips.size === 0 || model.mismatches === mismatches;
}

/** The backward pass: the draws (with `all`, also the fills and transfers) that show nothing. */
function backward(
  steps: readonly Step[],
  largest: ReadonlyMap<number, { width: number; height: number }>,
  all: boolean,
): Skips {
  const skips: Skips = new Map();
  const needed = new Map<number, Needed>();
  const of = (index: number, value: 0 | 1 = 1): Needed => {
    let n = needed.get(index);
    if (n === undefined) {
      const { width, height } = largest.get(index) ?? { width: 0, height: 0 };
      needed.set(index, (n = new Needed(width, height, value)));
    }
    return n;
  };
  for (let i = steps.length - 1; i >= 0; i--) {
    const step = steps[i]!;
    if (step.kind === 'size') {
      of(step.index).keepWithin(step.width, step.height);
      continue;
    }
    if (step.kind === 'dispose') {
      needed.delete(step.index);
      of(step.index, 0);
      continue;
    }
    const dst = of(step.dst);
    if (!step.written.some((r) => !isEmpty(r) && dst.touches(r))) {
      // Left out altogether, a draw that makes or grows its surface would change its size.
      if (!all || !step.grows) skips.set(step.at, step.size ?? null);
      continue;
    }
    // A copy needs of its source only what it puts where something is needed: read from the
    // destination's bits as they were before the copy replaced them.
    const written = step.written[0]!;
    const src = step.src === undefined ? undefined : of(step.src.index);
    if (step.src !== undefined && src !== undefined && src !== dst)
      src.addFrom(step.src.read, dst, written);
    const before = src === dst ? dst.snapshot(written) : undefined;
    if (step.replaces) for (const r of step.written) dst.set(r, 0);
    if (step.src !== undefined && before !== undefined)
      dst.addFrom(step.src.read, before, { ...written, y: written.y - before.y });
  }
  return skips;
}

/**
 * Resizes and disposals left out when nothing kept depends on them: in each life of a surface
 * (from its start or a disposal to the next disposal or the end), the resizes before the first
 * draw kept that writes or reads it matter only through the last of them (the others' pixels are
 * all gone or never drawn); a life with nothing kept needs only its last resize if the surface
 * lives on to the end, and no disposal. `initial` surfaces start with pixels of their own.
 */
function dropUnusedGeometry(steps: readonly Step[], skips: Skips, initial: Set<number>): void {
  interface Life {
    sizes: number[];
    firstKept: number | undefined;
  }
  const lives = new Map<number, Life>();
  const life = (index: number): Life => {
    let l = lives.get(index);
    if (l === undefined)
      lives.set(index, (l = { sizes: [], firstKept: initial.has(index) ? -1 : undefined }));
    return l;
  };
  const end = (l: Life, disposal: number | undefined): void => {
    const kept = l.firstKept;
    const before = kept === undefined ? l.sizes : l.sizes.filter((at) => at < kept);
    // The last resize before anything kept gives the surface its size then (or at the end).
    const last = kept !== undefined || disposal === undefined ? before.at(-1) : undefined;
    for (const at of before) if (at !== last) skips.set(at, null);
    if (disposal !== undefined && kept === undefined && last === undefined)
      skips.set(disposal, null);
  };
  const involve = (index: number, at: number): void => {
    const l = life(index);
    l.firstKept ??= at;
  };
  for (const step of steps) {
    if (step.kind === 'size') life(step.index).sizes.push(step.at);
    else if (step.kind === 'dispose') {
      end(life(step.index), step.at);
      lives.set(step.index, { sizes: [], firstKept: undefined });
    } else if (!skips.has(step.at)) {
      involve(step.dst, step.at);
      if (step.src !== undefined) involve(step.src.index, step.at);
    }
  }
  for (const l of lives.values()) end(l, undefined);
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
        steps.push({ at, kind: 'size', index, width: w, height: h });
        break;
      }
      case 'dispose':
        shapes.delete(n(0));
        paths.delete(n(0));
        steps.push({ at, kind: 'dispose', index: n(0) });
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
        const was = shapes.get(image.layer);
        const shape = surfaceFor(image.layer, rect);
        const written = clip(rect, shape.width, shape.height);
        const noAlpha = withoutAlpha(image.mimetype, head);
        const replaces = noAlpha || image.mask === CompositeMask.SRC;
        markOn(image.layer, written, noAlpha ? 1 : 0);
        const grows = shape !== was;
        steps.push({
          at,
          kind: 'draw',
          dst: image.layer,
          written: [written],
          replaces,
          grows,
          size,
        });
        break;
      }
      case 'copy':
      case 'transfer': {
        const srcIndex = n(0);
        const src = shapes.get(srcIndex);
        if (src === undefined) break;
        const from = { x: n(1), y: n(2), width: n(3), height: n(4) };
        const dstIndex = n(6);
        const was = shapes.get(dstIndex);
        const dst = surfaceFor(dstIndex, {
          x: n(7),
          y: n(8),
          width: from.width,
          height: from.height,
        });
        const { read, to } = copyGeometry(src, from, dst, n(7), n(8));
        // A transfer's result depends on the destination too (it never replaces), and is opaque.
        const sourceOpaque = opcode === 'copy' && allOpaque(src, read);
        const replaces = opcode === 'copy' && (n(5) === CompositeMask.SRC || sourceOpaque);
        markOn(dstIndex, to, opcode === 'transfer' || sourceOpaque ? 1 : 0);
        steps.push({
          at,
          kind: 'draw',
          dst: dstIndex,
          written: [to],
          replaces,
          grows: dst !== was,
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
        // The model's fillRects: an opaque colour, SRC or a clearing mask replaces (clearing
        // leaves transparent pixels), anything else blends.
        const index = n(1);
        const path = paths.get(index) ?? [];
        paths.delete(index);
        let bounds: Rect | undefined;
        for (const r of path) bounds = union(bounds, r);
        if (bounds === undefined) break;
        const was = shapes.get(index);
        const shape = surfaceFor(index, bounds);
        const mask = n(0);
        const alpha = n(5);
        const clears =
          (mask === CompositeMask.ROUT && alpha === 255) ||
          (mask === CompositeMask.RATOP && alpha === 0);
        const written = path.map((r) => clip(r, shape.width, shape.height));
        for (const area of written) markOn(index, area, !clears && alpha === 255 ? 1 : 0);
        const replaces = clears || alpha === 255 || mask === CompositeMask.SRC;
        steps.push({ at, kind: 'draw', dst: index, written, replaces, grows: shape !== was });
        break;
      }
      default:
        break;
    }
  }
  return { steps, largest };
}
