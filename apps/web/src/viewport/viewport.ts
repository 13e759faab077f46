// The viewport of one viewer window: which part of the remote desktop it shows (vx, vy, vw, vh in
// desktop pixels) and at what scale (CSS pixels per desktop pixel), plus where that picture sits
// in the display area (origin, CSS pixels). Pure functions for the one coordinate rule every
// part of the viewer shares: window = (desktop - (vx, vy)) * scale, where "window" is measured
// from the top-left corner of the displayed picture.
import { fitScale, type Size } from '../display/fit.js';

export interface Viewport {
  /** Desktop x shown at the picture's left edge. */
  vx: number;
  /** Desktop y shown at the picture's top edge. */
  vy: number;
  /** Desktop pixels shown across. */
  vw: number;
  /** Desktop pixels shown down. */
  vh: number;
  /** CSS pixels per desktop pixel. */
  scale: number;
}

export interface Point {
  x: number;
  y: number;
}

export interface RectLike {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Before the desktop size is known: nothing shown, scale 1 (never divide by zero). */
export const EMPTY_VIEWPORT: Viewport = { vx: 0, vy: 0, vw: 0, vh: 0, scale: 1 };

/**
 * The default viewport: the whole desktop, fitted into `area` keeping its aspect ratio (the
 * base viewer's fit rule), and where the fitted picture sits when centred in the area.
 */
export function fitViewport(area: Size, desktop: Size): { viewport: Viewport; origin: Point } {
  const scale = fitScale(area, desktop);
  const viewport: Viewport = { vx: 0, vy: 0, vw: desktop.width, vh: desktop.height, scale };
  const origin = {
    x: (area.width - desktop.width * scale) / 2,
    y: (area.height - desktop.height * scale) / 2,
  };
  return { viewport, origin };
}

export function desktopToWindow(viewport: Viewport, point: Point): Point {
  return {
    x: (point.x - viewport.vx) * viewport.scale,
    y: (point.y - viewport.vy) * viewport.scale,
  };
}

/** Inverse of desktopToWindow; a non-positive scale is treated as 1 (not yet laid out). */
export function windowToDesktop(viewport: Viewport, point: Point): Point {
  const scale = viewport.scale > 0 ? viewport.scale : 1;
  return { x: point.x / scale + viewport.vx, y: point.y / scale + viewport.vy };
}

export function rectToWindow(viewport: Viewport, rect: RectLike): RectLike {
  const topLeft = desktopToWindow(viewport, rect);
  return {
    x: topLeft.x,
    y: topLeft.y,
    width: rect.width * viewport.scale,
    height: rect.height * viewport.scale,
  };
}

/** The desktop rectangle the window shows, as integers (for "what the person sees"). */
export function visibleDesktopRect(viewport: Viewport): RectLike {
  return {
    x: Math.max(0, Math.floor(viewport.vx)),
    y: Math.max(0, Math.floor(viewport.vy)),
    width: Math.max(0, Math.round(viewport.vw)),
    height: Math.max(0, Math.round(viewport.vh)),
  };
}
