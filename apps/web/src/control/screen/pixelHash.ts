// Cheap change detection over RGBA pixels: an FNV-1a hash of a rectangle (wait_for_screen,
// screenshot stability) and a grid of cell hashes whose differences give the dirty rectangle of
// a frame (screen_change events). Every pixel is read — downscaling first would average small
// changes such as one typed character away. Pure functions over typed arrays.

export interface PixelRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** Hash of the pixels inside `rect` (clipped to the image); alpha is ignored. */
export function hashRect(data: Uint8ClampedArray, imageWidth: number, rect: PixelRect): number {
  const imageHeight = Math.floor(data.length / 4 / Math.max(1, imageWidth));
  const x0 = Math.max(0, Math.floor(rect.x));
  const y0 = Math.max(0, Math.floor(rect.y));
  const x1 = Math.min(imageWidth, Math.floor(rect.x + rect.width));
  const y1 = Math.min(imageHeight, Math.floor(rect.y + rect.height));
  const words = new Uint32Array(data.buffer, data.byteOffset, Math.floor(data.byteLength / 4));
  let hash = FNV_OFFSET;
  for (let y = y0; y < y1; y++) {
    const row = y * imageWidth;
    for (let x = x0; x < x1; x++) {
      // Little-endian RGBA: the mask keeps R, G and B.
      hash = Math.imul(hash ^ ((words[row + x] ?? 0) & 0x00ffffff), FNV_PRIME);
    }
  }
  return hash >>> 0;
}

/** Cell hashes, row by row, for cells of `cell` × `cell` pixels (edge cells are smaller). */
export function gridHashes(
  data: Uint8ClampedArray,
  width: number,
  height: number,
  cell: number,
): Uint32Array {
  const cols = Math.ceil(width / cell);
  const rows = Math.ceil(height / cell);
  const out = new Uint32Array(cols * rows);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      out[r * cols + c] = hashRect(data, width, {
        x: c * cell,
        y: r * cell,
        width: cell,
        height: cell,
      });
    }
  }
  return out;
}

/** Bounding rectangle of the cells that differ, clipped to the image; undefined when none. */
export function dirtyRect(
  before: Uint32Array,
  after: Uint32Array,
  width: number,
  height: number,
  cell: number,
): PixelRect | undefined {
  const cols = Math.ceil(width / cell);
  if (before.length !== after.length) return { x: 0, y: 0, width, height };
  let minC = Infinity;
  let minR = Infinity;
  let maxC = -1;
  let maxR = -1;
  for (let i = 0; i < after.length; i++) {
    if (before[i] === after[i]) continue;
    const r = Math.floor(i / cols);
    const c = i % cols;
    minC = Math.min(minC, c);
    maxC = Math.max(maxC, c);
    minR = Math.min(minR, r);
    maxR = Math.max(maxR, r);
  }
  if (maxC < 0) return undefined;
  const x = minC * cell;
  const y = minR * cell;
  return {
    x,
    y,
    width: Math.min(width, (maxC + 1) * cell) - x,
    height: Math.min(height, (maxR + 1) * cell) - y,
  };
}
