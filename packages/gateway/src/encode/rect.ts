// Axis-aligned rectangles in desktop pixels and the few operations the frame pipeline needs
// (area, union, intersection, subtraction, moving, clipping to the screen). Kept dependency-free
// so the region logic can be tested without a desktop.
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export function area(r: Rect): number {
  return r.width * r.height;
}

export function isEmpty(r: Rect): boolean {
  return r.width <= 0 || r.height <= 0;
}

export function union(a: Rect, b: Rect): Rect {
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

export function contains(outer: Rect, inner: Rect): boolean {
  return (
    inner.x >= outer.x &&
    inner.y >= outer.y &&
    inner.x + inner.width <= outer.x + outer.width &&
    inner.y + inner.height <= outer.y + outer.height
  );
}

/** Clips `r` to a screen of the given size; the result may be empty. */
export function clip(r: Rect, width: number, height: number): Rect {
  const x0 = Math.max(0, r.x);
  const y0 = Math.max(0, r.y);
  const x1 = Math.min(width, r.x + r.width);
  const y1 = Math.min(height, r.y + r.height);
  return { x: x0, y: y0, width: Math.max(0, x1 - x0), height: Math.max(0, y1 - y0) };
}

/** The overlap of two rectangles; empty (width or height 0) when they do not meet. */
export function intersection(a: Rect, b: Rect): Rect {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  return {
    x,
    y,
    width: Math.max(0, Math.min(a.x + a.width, b.x + b.width) - x),
    height: Math.max(0, Math.min(a.y + a.height, b.y + b.height) - y),
  };
}

export function translate(r: Rect, dx: number, dy: number): Rect {
  return { x: r.x + dx, y: r.y + dy, width: r.width, height: r.height };
}

/** The parts of `a` outside `b`: at most four rectangles (bands above and below, sides). */
export function subtract(a: Rect, b: Rect): Rect[] {
  const cut = intersection(a, b);
  if (isEmpty(cut)) return [a];
  const out: Rect[] = [];
  const aBottom = a.y + a.height;
  const cutBottom = cut.y + cut.height;
  if (cut.y > a.y) out.push({ x: a.x, y: a.y, width: a.width, height: cut.y - a.y });
  if (cutBottom < aBottom)
    out.push({ x: a.x, y: cutBottom, width: a.width, height: aBottom - cutBottom });
  if (cut.x > a.x) out.push({ x: a.x, y: cut.y, width: cut.x - a.x, height: cut.height });
  const aRight = a.x + a.width;
  const cutRight = cut.x + cut.width;
  if (cutRight < aRight)
    out.push({ x: cutRight, y: cut.y, width: aRight - cutRight, height: cut.height });
  return out;
}
