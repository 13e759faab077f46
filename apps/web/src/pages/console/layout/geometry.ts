// The layout editor's geometry, pure so it is tested without a browser: moving and resizing a
// rectangle of the desktop by a pointer drag or a key (whole desktop pixels, inside the editor's
// world), snapping the edges that move to the desktop's edges and to the other rectangles', keeping
// a monitor's shape to its screen's, drawing a new rectangle, and the suggested layout (1:1).
import { MAX_DESKTOP_PX } from '@overlay-companion/protocol';

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface Extent {
  width: number;
  height: number;
}

/** Edges snap within this many screen pixels (converted to desktop pixels at the view's scale)… */
export const SNAP_SCREEN_PX = 16;
/** …and never within fewer desktop pixels than this, however large the picture is drawn. */
export const SNAP_DESKTOP_PX = 16;
/** No rectangle gets smaller than this many desktop pixels on either side. */
export const MIN_RECT_PX = 16;

export type Handle = 'n' | 's' | 'e' | 'w' | 'ne' | 'nw' | 'se' | 'sw';
export type DragKind = 'move' | Handle;
export const HANDLES: readonly Handle[] = ['nw', 'n', 'ne', 'e', 'se', 's', 'sw', 'w'];

/** Where edges snap: the x and y positions of the desktop's edges and of the other rectangles'. */
export interface SnapTargets {
  xs: readonly number[];
  ys: readonly number[];
}

export function snapTargets(desktop: Extent | null, others: readonly Rect[]): SnapTargets {
  const xs = [0];
  const ys = [0];
  if (desktop !== null) {
    xs.push(desktop.width);
    ys.push(desktop.height);
  }
  for (const r of others) {
    xs.push(r.x, r.x + r.width);
    ys.push(r.y, r.y + r.height);
  }
  return { xs, ys };
}

/**
 * The shift that puts the nearest of `edges` on a target, if one is within `threshold`; 0
 * otherwise. Ties go to the first edge (a rectangle's left or top).
 */
export function snapShift(
  edges: readonly number[],
  targets: readonly number[],
  threshold: number,
): number {
  let best = 0;
  let bestDistance = Infinity;
  for (const edge of edges) {
    for (const target of targets) {
      const distance = Math.abs(target - edge);
      if (distance <= threshold && distance < bestDistance) {
        best = target - edge;
        bestDistance = distance;
      }
    }
  }
  return best;
}

/**
 * How far (desktop pixels) an edge snaps at the view's `scale`. In screen pixels, so the pull feels
 * the same at every zoom: at a laptop's width a two-monitor layout is drawn at about a fifth, and
 * the old 8 screen pixels let a monitor dropped "flush" stay 71 desktop pixels off. At least
 * SNAP_DESKTOP_PX, so a large picture still pulls.
 */
export function snapThreshold(scale: number): number {
  return scale > 0 ? Math.max(SNAP_DESKTOP_PX, SNAP_SCREEN_PX / scale) : SNAP_DESKTOP_PX;
}

const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));

export interface DragOptions {
  /** The editor's world: rectangles stay inside 0,0 – world. */
  world: Extent;
  targets: SnapTargets;
  /** Snapping distance in desktop pixels (0: no snapping). */
  threshold: number;
  /** width / height to keep (a monitor with a known screen), or undefined. */
  aspect?: number | undefined;
}

/** `start` moved by (dx, dy) desktop pixels, snapped, rounded and kept inside the world. */
export function moveRect(start: Rect, dx: number, dy: number, options: DragOptions): Rect {
  const { world, targets, threshold } = options;
  let x = start.x + dx;
  let y = start.y + dy;
  x += snapShift([x, x + start.width], targets.xs, threshold);
  y += snapShift([y, y + start.height], targets.ys, threshold);
  return {
    x: clamp(Math.round(x), 0, Math.max(0, world.width - start.width)),
    y: clamp(Math.round(y), 0, Math.max(0, world.height - start.height)),
    width: start.width,
    height: start.height,
  };
}

/**
 * `start` resized by dragging `handle` by (dx, dy) desktop pixels: the edges the handle names
 * move (and snap), the others stay. With `aspect`, the shape is kept: a side handle drives the
 * other side's length, a corner the width, always anchored at the opposite edge or corner.
 */
export function resizeRect(
  start: Rect,
  handle: Handle,
  dx: number,
  dy: number,
  options: DragOptions,
): Rect {
  const { world, targets, threshold, aspect } = options;
  const movesW = handle.includes('w');
  const movesE = handle.includes('e');
  const movesN = handle.includes('n');
  const movesS = handle.includes('s');
  let left = start.x;
  let right = start.x + start.width;
  let top = start.y;
  let bottom = start.y + start.height;
  if (movesW) left = clamp(snapTo(left + dx), 0, right - MIN_RECT_PX);
  if (movesE) right = clamp(snapTo(right + dx), left + MIN_RECT_PX, world.width);
  if (movesN) top = clamp(snapToY(top + dy), 0, bottom - MIN_RECT_PX);
  if (movesS) bottom = clamp(snapToY(bottom + dy), top + MIN_RECT_PX, world.height);

  function snapTo(value: number) {
    return value + snapShift([value], targets.xs, threshold);
  }
  function snapToY(value: number) {
    return value + snapShift([value], targets.ys, threshold);
  }

  // Which edges stay put: the ones the handle does not name; and the room beyond them.
  const anchorRight = movesW;
  const anchorBottom = movesN;
  const widthDrives = movesE || movesW;
  const roomX = anchorRight ? right : world.width - left;
  const roomY = anchorBottom ? bottom : world.height - top;
  let width = right - left;
  let height = bottom - top;
  const keepShape = aspect !== undefined && aspect > 0;
  if (keepShape) {
    if (widthDrives) height = width / aspect;
    else width = height * aspect;
    // Shrink to fit the world if keeping the shape grew it past an edge.
    const fit = Math.min(1, roomX / width, roomY / height);
    width *= fit;
    height *= fit;
  }
  // Whole pixels, with the anchored edges exactly where they were (or snapped to); with a shape
  // to keep, the other side follows the rounded driving side.
  let w = Math.max(MIN_RECT_PX, Math.round(width));
  let h = Math.max(MIN_RECT_PX, Math.round(height));
  if (keepShape && widthDrives) h = clamp(Math.round(w / aspect), MIN_RECT_PX, Math.floor(roomY));
  if (keepShape && !widthDrives) w = clamp(Math.round(h * aspect), MIN_RECT_PX, Math.floor(roomX));
  return {
    x: anchorRight ? Math.round(right) - w : Math.round(left),
    y: anchorBottom ? Math.round(bottom) - h : Math.round(top),
    width: w,
    height: h,
  };
}

/** A rectangle drawn from `from` to `to` (desktop pixels, any direction), snapped and kept inside. */
export function drawnRect(
  from: { x: number; y: number },
  to: { x: number; y: number },
  options: Omit<DragOptions, 'aspect'>,
): Rect {
  const { world, targets, threshold } = options;
  const snapX = (v: number) =>
    clamp(Math.round(v + snapShift([v], targets.xs, threshold)), 0, world.width);
  const snapY = (v: number) =>
    clamp(Math.round(v + snapShift([v], targets.ys, threshold)), 0, world.height);
  const x1 = snapX(from.x);
  const y1 = snapY(from.y);
  const x2 = snapX(to.x);
  const y2 = snapY(to.y);
  return {
    x: Math.min(x1, x2),
    y: Math.min(y1, y2),
    width: Math.abs(x2 - x1),
    height: Math.abs(y2 - y1),
  };
}

/** `rect` moved by whole pixels (arrow keys), kept inside the world. */
export function nudgeRect(rect: Rect, dx: number, dy: number, world: Extent): Rect {
  return {
    ...rect,
    x: clamp(rect.x + dx, 0, Math.max(0, world.width - rect.width)),
    y: clamp(rect.y + dy, 0, Math.max(0, world.height - rect.height)),
  };
}

/** `rect` grown or shrunk by whole pixels at its right and bottom edges (Alt + arrow keys). */
export function growRect(rect: Rect, dw: number, dh: number, world: Extent, aspect?: number): Rect {
  let width = clamp(rect.width + dw, MIN_RECT_PX, world.width - rect.x);
  let height = clamp(rect.height + dh, MIN_RECT_PX, world.height - rect.y);
  if (aspect !== undefined && aspect > 0) {
    if (dw !== 0) height = clamp(Math.round(width / aspect), MIN_RECT_PX, world.height - rect.y);
    else width = clamp(Math.round(height * aspect), MIN_RECT_PX, world.width - rect.x);
  }
  return { ...rect, width, height };
}

/** Pairs of rectangles that overlap (touching edges do not), as [earlier, later] indexes. */
export function overlappingPairs(rects: readonly Rect[]): Array<[number, number]> {
  const pairs: Array<[number, number]> = [];
  rects.forEach((a, i) => {
    for (let j = i + 1; j < rects.length; j++) {
      const b = rects[j];
      if (
        b !== undefined &&
        a.x < b.x + b.width &&
        b.x < a.x + a.width &&
        a.y < b.y + b.height &&
        b.y < a.y + a.height
      ) {
        pairs.push([i, j]);
      }
    }
  });
  return pairs;
}

/** A screen to lay out: its size, and where the browser says it is among the others, if it said. */
export interface PlacedScreen extends Extent {
  left?: number | undefined;
  top?: number | undefined;
}

/**
 * The suggested layout, at 1:1: each monitor is as many desktop pixels as its screen has CSS
 * pixels (so every viewer window shows its part at scale 1, nothing squeezed), and the desktop the
 * layout asks for is the screens' bounding box. Screens whose positions the browser reported keep
 * their arrangement (moved so the box starts at 0, 0); otherwise — or when those positions overlap,
 * as mirrored screens do — side by side from the left, tops aligned. Only a layout past the largest
 * desktop is scaled down, all of it by one factor.
 */
export function suggestLayout(screens: readonly PlacedScreen[]): Rect[] {
  if (screens.length === 0 || screens.some((s) => s.width <= 0 || s.height <= 0)) return [];
  const placed = placedAsReported(screens) ?? sideBySide(screens);
  const box = placed.reduce(
    (max, r) => ({
      width: Math.max(max.width, r.x + r.width),
      height: Math.max(max.height, r.y + r.height),
    }),
    { width: 0, height: 0 },
  );
  const factor = Math.min(1, MAX_DESKTOP_PX / box.width, MAX_DESKTOP_PX / box.height);
  if (factor === 1) return placed;
  // Edges scaled rather than sizes, so rectangles that touched still touch after rounding.
  return placed.map((r) => {
    const x = Math.floor(r.x * factor);
    const y = Math.floor(r.y * factor);
    return {
      x,
      y,
      width: Math.max(1, Math.floor((r.x + r.width) * factor) - x),
      height: Math.max(1, Math.floor((r.y + r.height) * factor) - y),
    };
  });
}

/** The screens where the browser put them, the top-left one at 0, 0; null if it did not say. */
function placedAsReported(screens: readonly PlacedScreen[]): Rect[] | null {
  const rects: Rect[] = [];
  for (const s of screens) {
    if (s.left === undefined || s.top === undefined) return null;
    rects.push({ x: Math.round(s.left), y: Math.round(s.top), width: s.width, height: s.height });
  }
  const minX = Math.min(...rects.map((r) => r.x));
  const minY = Math.min(...rects.map((r) => r.y));
  const moved = rects.map((r) => ({ ...r, x: r.x - minX, y: r.y - minY }));
  return overlappingPairs(moved).length === 0 ? moved : null;
}

function sideBySide(screens: readonly Extent[]): Rect[] {
  let x = 0;
  return screens.map((s) => {
    const rect = { x, y: 0, width: s.width, height: s.height };
    x += s.width;
    return rect;
  });
}

/**
 * The editor's world: the desktop or the layout's bounds, whichever is larger, with room for one
 * more of the largest rectangle to the right and below — so any monitor can be put beside or
 * under the others in one drag (the layout decides the desktop's size). Never past the largest
 * desktop.
 */
export function editorWorld(
  desktop: Extent | null,
  bounds: Extent,
  rects: readonly Extent[],
): Extent {
  const largest = rects.reduce(
    (max, r) => ({ width: Math.max(max.width, r.width), height: Math.max(max.height, r.height) }),
    { width: 0, height: 0 },
  );
  return {
    width: Math.min(MAX_DESKTOP_PX, Math.max(desktop?.width ?? 0, bounds.width, 1) + largest.width),
    height: Math.min(
      MAX_DESKTOP_PX,
      Math.max(desktop?.height ?? 0, bounds.height, 1) + largest.height,
    ),
  };
}
