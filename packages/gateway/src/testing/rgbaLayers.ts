// The test client's drawing surface: Guacamole layers as plain RGBA buffers, and the pixel
// operations its instructions need (resize keeping the overlap, blit a decoded image, opaque
// rectangle fills, copy between layers through a temporary, crop). Kept exact and simple: the
// tests compare these pixels with the desktop's own (xwd -root).

export interface Layer {
  width: number;
  height: number;
  rgba: Buffer;
}

/** A layer of `width`×`height` keeping what `old` had in the overlapping area. */
export function resizedLayer(old: Layer | undefined, width: number, height: number): Layer {
  const layer = { width, height, rgba: Buffer.alloc(width * height * 4) };
  if (old) {
    for (let y = 0; y < Math.min(height, old.height); y++) {
      old.rgba.copy(
        layer.rgba,
        y * width * 4,
        y * old.width * 4,
        y * old.width * 4 + Math.min(width, old.width) * 4,
      );
    }
  }
  return layer;
}

/** Writes RGBA `data` of `width`×`height` into `layer` at (x, y), clipped to the layer. */
export function blit(
  layer: Layer,
  data: Buffer,
  size: { width: number; height: number },
  x: number,
  y: number,
): void {
  for (let row = 0; row < size.height; row++) {
    const ty = y + row;
    if (ty < 0 || ty >= layer.height) continue;
    const w = Math.min(size.width, layer.width - x);
    data.copy(
      layer.rgba,
      (ty * layer.width + x) * 4,
      row * size.width * 4,
      (row * size.width + w) * 4,
    );
  }
}

export interface PathRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Fills `rects` with one opaque colour (OVER with alpha 255 replaces the pixels). */
export function fillRects(layer: Layer, rects: readonly PathRect[], rgba: readonly number[]): void {
  const pixel = Buffer.from(rgba);
  for (const r of rects) {
    for (let y = Math.max(0, r.y); y < Math.min(layer.height, r.y + r.height); y++) {
      for (let x = Math.max(0, r.x); x < Math.min(layer.width, r.x + r.width); x++) {
        pixel.copy(layer.rgba, (y * layer.width + x) * 4);
      }
    }
  }
}

/** The `w`×`h` pixels of `src` at (sx, sy) as a new RGBA buffer. */
export function crop(src: Layer, sx: number, sy: number, w: number, h: number): Buffer {
  const out = Buffer.alloc(w * h * 4);
  for (let y = 0; y < h; y++)
    src.rgba.copy(
      out,
      y * w * 4,
      ((sy + y) * src.width + sx) * 4,
      ((sy + y) * src.width + sx + w) * 4,
    );
  return out;
}

/** Copies a rectangle between layers (or within one: through a temporary, as a blit would). */
export function copyRect(
  src: Layer,
  from: { x: number; y: number; width: number; height: number },
  dst: Layer,
  dx: number,
  dy: number,
): void {
  const tmp = crop(src, from.x, from.y, from.width, from.height);
  const w = from.width;
  for (let y = 0; y < from.height; y++)
    tmp.copy(dst.rgba, ((dy + y) * dst.width + dx) * 4, y * w * 4, (y + 1) * w * 4);
}
