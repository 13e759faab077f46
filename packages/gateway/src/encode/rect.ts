// Axis-aligned rectangles in desktop pixels and the few operations the frame pipeline needs
// (area, union, intersection, clipping to the screen). Kept dependency-free so the region
// logic can be tested without a desktop.
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
