// Scales RGBA pixels down to a smaller size by averaging the area of the source each target pixel
// covers (a box filter), into tight RGB: a thumbnail of the screen (guacUser.ts's `thumbnail`
// attention). Every source pixel is read once, so a 1280×800 screen takes a few milliseconds —
// less than sharp's resize, which also needs the framebuffer's meaningless alpha dealt with first.
// The alpha channel is ignored.

/** `rgba` (`width`×`height`) averaged down to `toWidth`×`toHeight` RGB; never enlarges. */
export function scaleDown(
  rgba: Uint8Array,
  width: number,
  height: number,
  toWidth: number,
  toHeight: number,
): Buffer {
  if (toWidth > width || toHeight > height || toWidth < 1 || toHeight < 1) {
    throw new RangeError(
      `scaleDown: ${String(width)}×${String(height)} cannot become ${String(toWidth)}×${String(toHeight)}`,
    );
  }
  // The target column each source column falls in, and how many source columns each target has.
  const column = new Uint32Array(width);
  const columns = new Uint32Array(toWidth);
  for (let x = 0; x < width; x++) {
    const target = Math.min(toWidth - 1, Math.floor((x * toWidth) / width));
    column[x] = target;
    columns[target]! += 1;
  }
  const out = Buffer.alloc(toWidth * toHeight * 3);
  const sums = new Uint32Array(toWidth * 3);
  let sourceRow = 0;
  for (let y = 0; y < toHeight; y++) {
    const rowEnd = y === toHeight - 1 ? height : Math.floor(((y + 1) * height) / toHeight);
    const rows = rowEnd - sourceRow;
    sums.fill(0);
    for (; sourceRow < rowEnd; sourceRow++) {
      let at = sourceRow * width * 4;
      for (let x = 0; x < width; x++, at += 4) {
        const s = column[x]! * 3;
        sums[s]! += rgba[at]!;
        sums[s + 1]! += rgba[at + 1]!;
        sums[s + 2]! += rgba[at + 2]!;
      }
    }
    let o = y * toWidth * 3;
    for (let x = 0; x < toWidth; x++) {
      const n = columns[x]! * rows;
      const half = n >>> 1;
      out[o++] = Math.floor((sums[x * 3]! + half) / n);
      out[o++] = Math.floor((sums[x * 3 + 1]! + half) / n);
      out[o++] = Math.floor((sums[x * 3 + 2]! + half) / n);
    }
  }
  return out;
}
