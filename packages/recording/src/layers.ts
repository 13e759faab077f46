// RGBA surfaces for the display model: a Guacamole layer or buffer as a plain RGBA buffer, and
// the pixel operations the server→client drawing instructions need (resize keeping the overlap,
// draw a decoded image with SRC or OVER, fill a path, copy between surfaces, binary raster
// `transfer`, crop, paint rectangles black). Every operation clips to both surfaces, because a
// recording may hold any coordinates a server sent.

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Larger than any real desktop: a hostile or broken recording must not allocate gigabytes. */
export const MAX_SURFACE_SIDE = 16_384;

/** Whether a `size` instruction asks for a surface the model may make. */
export function sizeAllowed(width: number, height: number): boolean {
  return width >= 0 && height >= 0 && width <= MAX_SURFACE_SIDE && height <= MAX_SURFACE_SIDE;
}

/**
 * The size surface `index` must take before `rect` is drawn on it, or undefined when it stays as
 * it is: a buffer (negative index) grows to hold what is drawn, a surface never sized starts at
 * what is drawn, and a layer keeps the size its `size` gave it (the server sizes layers).
 */
export function grownSize(
  index: number,
  current: { width: number; height: number } | undefined,
  rect: Rect,
): { width: number; height: number } | undefined {
  const needW = Math.min(MAX_SURFACE_SIDE, rect.x + rect.width);
  const needH = Math.min(MAX_SURFACE_SIDE, rect.y + rect.height);
  if (current !== undefined && (index >= 0 || (needW <= current.width && needH <= current.height)))
    return undefined;
  return {
    width: Math.max(current?.width ?? 0, needW),
    height: Math.max(current?.height ?? 0, needH),
  };
}

export interface Surface {
  width: number;
  height: number;
  /** width*height*4 bytes, RGBA. */
  rgba: Buffer;
}

/**
 * Guacamole composite operations (channel masks) the model distinguishes. guacd 1.6 clears
 * non-opaque layers with `cfill` ROUT (opaque colour) or RATOP (alpha 0) before redrawing them;
 * both leave transparent pixels. Every other operation is drawn as OVER.
 */
export const CompositeMask = { ROUT: 0x2, RATOP: 0x9, SRC: 0xc, OVER: 0xe } as const;

export function emptySurface(width: number, height: number): Surface {
  return { width, height, rgba: Buffer.alloc(width * height * 4) };
}

/** A surface of `width`×`height` keeping what `old` had in the overlapping area. */
export function resized(old: Surface | undefined, width: number, height: number): Surface {
  const out = emptySurface(width, height);
  if (old) {
    const w = Math.min(width, old.width) * 4;
    for (let y = 0; y < Math.min(height, old.height); y++)
      old.rgba.copy(out.rgba, y * width * 4, y * old.width * 4, y * old.width * 4 + w);
  }
  return out;
}

/** `r` clipped to a `width`×`height` surface; width/height ≤ 0 when nothing is left. */
export function clip(r: Rect, width: number, height: number): Rect {
  const x = Math.max(0, r.x);
  const y = Math.max(0, r.y);
  return {
    x,
    y,
    width: Math.min(width, r.x + r.width) - x,
    height: Math.min(height, r.y + r.height) - y,
  };
}

export function isEmpty(r: Rect): boolean {
  return r.width <= 0 || r.height <= 0;
}

/** The bounding box of two rectangles (either may be empty). */
export function union(a: Rect | undefined, b: Rect): Rect {
  if (a === undefined || isEmpty(a)) return { ...b };
  if (isEmpty(b)) return a;
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  return {
    x,
    y,
    width: Math.max(a.x + a.width, b.x + b.width) - x,
    height: Math.max(a.y + a.height, b.y + b.height) - y,
  };
}

export function intersects(a: Rect, b: Rect): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/**
 * Draws RGBA `data` (`width`×`height`) at (x, y). SRC replaces pixels; OVER blends by the
 * source alpha (desktop images are opaque, so it replaces them too, on the fast path).
 * `knownOpaque`: every pixel of `data` is opaque (the image's format has no alpha).
 */
export function drawImage(
  dst: Surface,
  data: Buffer,
  width: number,
  height: number,
  x: number,
  y: number,
  mask: number,
  knownOpaque = false,
): void {
  const area = clip({ x, y, width, height }, dst.width, dst.height);
  if (isEmpty(area)) return;
  const sx = area.x - x;
  const sy = area.y - y;
  // An image without alpha (the caller knows from its format) needs no scan of every pixel.
  let opaque = knownOpaque || mask === CompositeMask.SRC;
  if (!opaque) {
    opaque = true;
    for (let o = 3; o < data.length; o += 4)
      if (data[o] !== 255) {
        opaque = false;
        break;
      }
  }
  // SRC of pixels not known opaque, or a blend: `area` may not be opaque any more.
  if (!knownOpaque && (mask === CompositeMask.SRC || !opaque)) mayBeTranslucent(dst, area);
  for (let row = 0; row < area.height; row++) {
    const s = ((sy + row) * width + sx) * 4;
    const d = ((area.y + row) * dst.width + area.x) * 4;
    if (opaque) {
      data.copy(dst.rgba, d, s, s + area.width * 4);
      continue;
    }
    for (let i = 0; i < area.width * 4; i += 4) blendPixel(dst.rgba, d + i, data, s + i);
  }
}

function blendPixel(dst: Buffer, d: number, src: Buffer, s: number): void {
  const a = src[s + 3]!;
  if (a === 255) {
    src.copy(dst, d, s, s + 4);
    return;
  }
  if (a === 0) return;
  const da = dst[d + 3]!;
  const outA = a + (da * (255 - a)) / 255;
  for (let c = 0; c < 3; c++) {
    const value = (src[s + c]! * a + (dst[d + c]! * da * (255 - a)) / 255) / outA;
    dst[d + c] = Math.round(value);
  }
  dst[d + 3] = Math.round(outA);
}

/** Fills each rectangle with one colour (OVER with its alpha; SRC replaces). */
export function fillRects(
  dst: Surface,
  rects: readonly Rect[],
  rgba: readonly [number, number, number, number],
  mask: number,
): void {
  const clears =
    (mask === CompositeMask.ROUT && rgba[3] === 255) ||
    (mask === CompositeMask.RATOP && rgba[3] === 0);
  const pixel = Buffer.from(clears ? [0, 0, 0, 0] : rgba);
  const replace = clears || rgba[3] === 255 || mask === CompositeMask.SRC;
  for (const r of rects) {
    const area = clip(r, dst.width, dst.height);
    if (isEmpty(area)) continue;
    if (clears || rgba[3] !== 255) mayBeTranslucent(dst, area);
    for (let y = area.y; y < area.y + area.height; y++) {
      const start = (y * dst.width + area.x) * 4;
      if (replace) dst.rgba.fill(pixel, start, start + area.width * 4);
      else for (let i = 0; i < area.width * 4; i += 4) blendPixel(dst.rgba, start + i, pixel, 0);
    }
  }
}

/** The pixels of `area` (clipped to `src`) as a tight RGBA buffer, with the clipped rect. */
export function crop(src: Surface, area: Rect): { rect: Rect; rgba: Buffer } {
  const rect = clip(area, src.width, src.height);
  if (isEmpty(rect)) return { rect: { ...rect, width: 0, height: 0 }, rgba: Buffer.alloc(0) };
  const rgba = Buffer.alloc(rect.width * rect.height * 4);
  for (let y = 0; y < rect.height; y++) {
    const s = ((rect.y + y) * src.width + rect.x) * 4;
    src.rgba.copy(rgba, y * rect.width * 4, s, s + rect.width * 4);
  }
  return { rect, rgba };
}

/**
 * Copies `from` of `src` to (dx, dy) of `dst` as a canvas blit does: a copy within one surface
 * reads what was there before. Returns the rectangle written. An opaque copy (SRC, or an opaque
 * source) — every scroll of a desktop — goes row by row straight into `dst`, bottom up when it
 * moves down within one surface, with no temporary: the recorder follows heavy scrolling at the
 * cost of one memmove per row (one in all when whole rows move). Anything else blends through
 * a temporary.
 */
export function copyRect(
  src: Surface,
  from: Rect,
  dst: Surface,
  dx: number,
  dy: number,
  mask: number = CompositeMask.SRC,
): Rect {
  const { read, to } = copyGeometry(src, from, dst, dx, dy);
  if (isEmpty(to)) return to;
  const { x: sx, y: sy } = read;
  const sourceOpaque = mask === CompositeMask.SRC ? knownOpaqueArea(src, read) : opaque(src, read);
  if (mask === CompositeMask.SRC || sourceOpaque) {
    if (!sourceOpaque) mayBeTranslucent(dst, to);
    const bytes = to.width * 4;
    if (to.x === 0 && sx === 0 && to.width === dst.width && src.width === dst.width) {
      // Whole rows (a terminal's scroll): one contiguous block, one memmove (overlap is safe).
      const s = sy * bytes;
      src.rgba.copy(dst.rgba, to.y * bytes, s, s + to.height * bytes);
      return to;
    }
    const bottomUp = src === dst && to.y > sy;
    for (let i = 0; i < to.height; i++) {
      const row = bottomUp ? to.height - 1 - i : i;
      const s = ((sy + row) * src.width + sx) * 4;
      const d = ((to.y + row) * dst.width + to.x) * 4;
      // Within one surface copyWithin (a memmove, overlap safe, and no view of the row made as
      // Buffer#copy makes one); between two, Buffer#copy.
      if (src === dst) dst.rgba.copyWithin(d, s, s + bytes);
      else src.rgba.copy(dst.rgba, d, s, s + bytes);
    }
    return to;
  }
  return blendCopy(src, from, dst, dx, dy, mask);
}

/**
 * Where a copy of `from` of a surface the size of `src` to (dx, dy) of one the size of `dst`
 * reads (`read`) and writes (`to`), clipped to both; `to` is empty when nothing is copied.
 */
export function copyGeometry(
  src: { width: number; height: number },
  from: Rect,
  dst: { width: number; height: number },
  dx: number,
  dy: number,
): { read: Rect; to: Rect } {
  const source = clip(from, src.width, src.height);
  if (isEmpty(source)) {
    const none = { x: dx, y: dy, width: 0, height: 0 };
    return { read: none, to: none };
  }
  const at = { x: dx + (source.x - from.x), y: dy + (source.y - from.y) };
  const to = clip({ ...at, width: source.width, height: source.height }, dst.width, dst.height);
  const read = {
    x: source.x + (to.x - at.x),
    y: source.y + (to.y - at.y),
    width: to.width,
    height: to.height,
  };
  return { read, to };
}

/**
 * Per surface, an area whose pixels were last found all opaque (by opaque(), below), so a copy
 * that reads within it again needs no scan: every frame of a scroll copies nearly the whole
 * screen OVER itself, and scanning its alpha cost ten times the copy. Forgotten as soon as this
 * module writes pixels that may not be opaque into it (mayBeTranslucent); a surface's pixels
 * change only through this module's functions (maskTaint's black is opaque), and a resize makes
 * a new surface.
 */
const opaqueAreas = new WeakMap<Surface, Rect>();

function within(inner: Rect, outer: Rect): boolean {
  return (
    inner.x >= outer.x &&
    inner.y >= outer.y &&
    inner.x + inner.width <= outer.x + outer.width &&
    inner.y + inner.height <= outer.y + outer.height
  );
}

/** Whether `area` of `surface` is known opaque without looking at its pixels. */
function knownOpaqueArea(surface: Surface, area: Rect): boolean {
  const known = opaqueAreas.get(surface);
  return known !== undefined && within(area, known);
}

/** Pixels of `area` in `surface` may be written translucent: it is no longer known opaque. */
function mayBeTranslucent(surface: Surface, area: Rect): void {
  const known = opaqueAreas.get(surface);
  if (known !== undefined && intersects(known, area)) opaqueAreas.delete(surface);
}

/** Whether every pixel of `area` (inside `surface`) is opaque. */
export function opaque(surface: Surface, area: Rect): boolean {
  if (knownOpaqueArea(surface, area)) return true;
  for (let y = area.y; y < area.y + area.height; y++) {
    const end = (y * surface.width + area.x + area.width) * 4;
    for (let o = (y * surface.width + area.x) * 4 + 3; o < end; o += 4)
      if (surface.rgba[o] !== 255) return false;
  }
  opaqueAreas.set(surface, { ...area });
  return true;
}

function blendCopy(
  src: Surface,
  from: Rect,
  dst: Surface,
  dx: number,
  dy: number,
  mask: number,
): Rect {
  const { rect, rgba } = crop(src, from);
  if (rgba.length === 0) return { x: dx, y: dy, width: 0, height: 0 };
  const x = dx + (rect.x - from.x);
  const y = dy + (rect.y - from.y);
  drawImage(dst, rgba, rect.width, rect.height, x, y, mask);
  return clip({ x, y, width: rect.width, height: rect.height }, dst.width, dst.height);
}

/**
 * `transfer`: a binary raster operation per colour channel bit. The function's four bits say
 * the result for (src, dst) = (1,1), (1,0), (0,1), (0,0), lowest first — so SRC is 0x3, DEST
 * 0x5, XOR 0x6 and WHITE 0xF, as in guacamole-common-js. Alpha is left opaque.
 */
export function transferRect(
  src: Surface,
  from: Rect,
  fn: number,
  dst: Surface,
  dx: number,
  dy: number,
): Rect {
  const { rect, rgba } = crop(src, from);
  const x0 = dx + (rect.x - from.x);
  const y0 = dy + (rect.y - from.y);
  const area = clip(
    { x: x0, y: y0, width: rect.width, height: rect.height },
    dst.width,
    dst.height,
  );
  if (isEmpty(area)) return area;
  for (let y = area.y; y < area.y + area.height; y++) {
    for (let x = area.x; x < area.x + area.width; x++) {
      const s = ((y - y0) * rect.width + (x - x0)) * 4;
      const d = (y * dst.width + x) * 4;
      for (let c = 0; c < 3; c++) {
        const a = rgba[s + c]!;
        const b = dst.rgba[d + c]!;
        let v = 0;
        if (fn & 1) v |= a & b;
        if (fn & 2) v |= a & ~b;
        if (fn & 4) v |= ~a & b;
        if (fn & 8) v |= ~a & ~b;
        dst.rgba[d + c] = v & 0xff;
      }
      dst.rgba[d + 3] = 255;
    }
  }
  return area;
}

/** Paints `rects` opaque black in a tight RGBA buffer that shows `area` of the screen. */
export function blackOut(rgba: Buffer, area: Rect, rects: readonly Rect[]): void {
  const black = Buffer.from([0, 0, 0, 255]);
  for (const r of rects) {
    const x0 = Math.max(area.x, r.x);
    const y0 = Math.max(area.y, r.y);
    const x1 = Math.min(area.x + area.width, r.x + r.width);
    const y1 = Math.min(area.y + area.height, r.y + r.height);
    if (x1 <= x0 || y1 <= y0) continue;
    for (let y = y0; y < y1; y++) {
      const start = ((y - area.y) * area.width + (x0 - area.x)) * 4;
      rgba.fill(black, start, start + (x1 - x0) * 4);
    }
  }
}
