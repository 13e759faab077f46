// Teach mode's geometry, pure: the desktop pixel under the person's pointer on the interaction
// layer (through this window's viewport, clamped to what the window shows of the desktop), the
// rectangle a drag spans, the keyboard crosshair's steps, and an item as the tool returns it
// (integers clamped to the desktop, with the monitor that holds the point or the centre).
import {
  clampRect,
  monitorIndexAt,
  rectCentre,
  type Annotation,
  type MonitorRect,
  type PrivacyMask,
} from '@overlay-companion/protocol';
import { windowToDesktop, type Point, type RectLike, type Viewport } from '../viewport/viewport.js';

export interface DesktopSize {
  width: number;
  height: number;
}

/** One thing the person pointed out, in whole desktop pixels (a point is 1 × 1). */
export interface DesktopItem {
  kind: 'rect' | 'point';
  x: number;
  y: number;
  width: number;
  height: number;
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(Math.max(value, low), high);
}

/**
 * The desktop pixels this window shows: the viewport, cut to the desktop. A pointer can only
 * point at what the person sees, so every position is clamped into this (never empty: at least
 * pixel 0,0 while nothing is known).
 */
export function shownDesktop(viewport: Viewport, desktop: DesktopSize): RectLike {
  const left = clamp(Math.floor(viewport.vx), 0, Math.max(0, desktop.width - 1));
  const top = clamp(Math.floor(viewport.vy), 0, Math.max(0, desktop.height - 1));
  const right = clamp(Math.ceil(viewport.vx + viewport.vw), left + 1, Math.max(1, desktop.width));
  const bottom = clamp(Math.ceil(viewport.vy + viewport.vh), top + 1, Math.max(1, desktop.height));
  return { x: left, y: top, width: right - left, height: bottom - top };
}

/**
 * The desktop pixel under `point`, a position measured from the top-left corner of the display
 * area (the layer's box); `origin` is where the picture sits in that area (viewport store). The
 * same rule as the person's own input: desktop = (vx, vy) + window / scale, rounded down; then
 * clamped into the shown part of the desktop, so a drag that leaves the picture ends at its edge.
 */
export function areaToDesktopPixel(
  point: Point,
  origin: Point,
  viewport: Viewport,
  desktop: DesktopSize,
): Point {
  const d = windowToDesktop(viewport, { x: point.x - origin.x, y: point.y - origin.y });
  return clampToShown({ x: Math.floor(d.x), y: Math.floor(d.y) }, viewport, desktop);
}

export function clampToShown(point: Point, viewport: Viewport, desktop: DesktopSize): Point {
  const shown = shownDesktop(viewport, desktop);
  return {
    x: clamp(point.x, shown.x, shown.x + shown.width - 1),
    y: clamp(point.y, shown.y, shown.y + shown.height - 1),
  };
}

/** The rectangle whose opposite corner pixels are `a` and `b` (both included). */
export function rectBetween(a: Point, b: Point): DesktopItem {
  return {
    kind: 'rect',
    x: Math.min(a.x, b.x),
    y: Math.min(a.y, b.y),
    width: Math.abs(a.x - b.x) + 1,
    height: Math.abs(a.y - b.y) + 1,
  };
}

export function pointItem(p: Point): DesktopItem {
  return { kind: 'point', x: p.x, y: p.y, width: 1, height: 1 };
}

/** The keyboard crosshair's step in desktop pixels: arrows 10, with Shift 100, with Ctrl 1. */
export function crosshairStep(modifiers: { shiftKey: boolean; ctrlKey: boolean }): number {
  if (modifiers.ctrlKey) return 1;
  return modifiers.shiftKey ? 100 : 10;
}

const ARROWS: Readonly<Record<string, Point>> = {
  ArrowLeft: { x: -1, y: 0 },
  ArrowRight: { x: 1, y: 0 },
  ArrowUp: { x: 0, y: -1 },
  ArrowDown: { x: 0, y: 1 },
};

/** The crosshair after an arrow key, or undefined when `key` is no arrow. */
export function movedCrosshair(
  at: Point,
  key: string,
  step: number,
  viewport: Viewport,
  desktop: DesktopSize,
): Point | undefined {
  const direction = ARROWS[key];
  if (direction === undefined) return undefined;
  return clampToShown(
    { x: at.x + direction.x * step, y: at.y + direction.y * step },
    viewport,
    desktop,
  );
}

function overlaps(a: RectLike, b: RectLike): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/** The first privacy mask the item touches: areas the person made private cannot be annotated. */
export function maskHit(item: DesktopItem, masks: readonly PrivacyMask[]): PrivacyMask | undefined {
  return masks.find((mask) => overlaps(item, mask));
}

/**
 * An item as request_annotation returns it: clamped to the desktop (undefined when nothing of it
 * is left, e.g. the desktop shrank meanwhile), with the monitor holding the point or the centre
 * and the note when the person wrote one (verbatim).
 */
export function toAnnotation(
  item: DesktopItem & { note: string },
  desktop: DesktopSize,
  monitors: readonly MonitorRect[],
): Annotation | undefined {
  const r = clampRect({ x: item.x, y: item.y, width: item.width, height: item.height }, desktop);
  if (r.width < 1 || r.height < 1) return undefined;
  const note = item.note.trim() === '' ? {} : { note: item.note };
  if (item.kind === 'point') {
    return { kind: 'point', x: r.x, y: r.y, ...note, monitor_index: monitorIndexAt(monitors, r) };
  }
  return {
    kind: 'rect',
    x: r.x,
    y: r.y,
    width: r.width,
    height: r.height,
    ...note,
    monitor_index: monitorIndexAt(monitors, rectCentre(r)),
  };
}
