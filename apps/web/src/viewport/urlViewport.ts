// The seed's viewer URL parameters for multi-monitor cropping: `vx, vy, vw, vh` (a rectangle of
// the desktop, desktop pixels) and `scale` (CSS pixels per desktop pixel; omitted = fit the
// rectangle to the window), plus `monitor` (its index in the person's layout, shown in the
// chrome). Parsed once per page with zod; a malformed set is refused as a whole with a sentence
// that names the parameter, and the window shows the whole desktop instead. Also `desktop`:
// which of the person's desktops this window shows (every ticket asks for it; omitted = the
// bridge's default for the person), kept in every window URL the viewer makes for more monitors.
import {
  MAX_VIEWER_SCALE,
  MIN_VIEWER_SCALE,
  TicketRequest,
  VIEWER_URL_PARAMS,
  viewerUrlFor,
  type LayoutMonitor,
} from '@overlay-companion/protocol';
import { z } from 'zod';
import { fitScale, type Size } from '../display/fit.js';
import type { Point, Viewport } from './viewport.js';

const MAX_PX = 32767;
const Int = (min: number) =>
  z
    .string()
    .regex(/^\d{1,5}$/, 'must be a whole number of pixels')
    .transform(Number)
    .pipe(z.int().min(min).max(MAX_PX));

const UrlViewport = z.object({
  vx: Int(0),
  vy: Int(0),
  vw: Int(1),
  vh: Int(1),
  scale: z
    .string()
    .regex(/^\d+(\.\d+)?$/, 'must be a number such as 1 or 0.75')
    .transform(Number)
    .pipe(z.number().min(MIN_VIEWER_SCALE).max(MAX_VIEWER_SCALE))
    .optional(),
  monitor: Int(0).pipe(z.int().max(63)).optional(),
});

/** A window's crop of the desktop, from its URL. */
export interface Crop {
  vx: number;
  vy: number;
  vw: number;
  vh: number;
  /** Undefined: fit the rectangle into the window. */
  scale: number | undefined;
  /** The layout monitor this window shows, when the URL says. */
  monitor: number | undefined;
}

export type CropResult = { crop: Crop | undefined } | { error: string };

/** The crop a URL's query asks for: none when it names no vx/vy/vw/vh. */
export function parseCrop(search: string): CropResult {
  const params = new URLSearchParams(search);
  const p = VIEWER_URL_PARAMS;
  const named = [p.vx, p.vy, p.vw, p.vh].filter((key) => params.has(key));
  if (named.length === 0) return { crop: undefined };
  const value = (key: string) => params.get(key) ?? undefined;
  const parsed = UrlViewport.safeParse({
    vx: value(p.vx),
    vy: value(p.vy),
    vw: value(p.vw),
    vh: value(p.vh),
    scale: value(p.scale),
    monitor: value(p.monitor),
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = String(issue?.path[0] ?? 'vx');
    const why = issue?.code === 'invalid_type' ? 'is missing' : (issue?.message ?? 'is invalid');
    return {
      error: `The viewport in this window's address is not usable: ${field} ${why}. It needs vx, vy, vw and vh (desktop pixels) and optionally scale (${MIN_VIEWER_SCALE}–${MAX_VIEWER_SCALE}); showing the whole desktop instead.`,
    };
  }
  const { vx, vy, vw, vh, scale, monitor } = parsed.data;
  return { crop: { vx, vy, vw, vh, scale, monitor } };
}

/**
 * This window's viewport for a crop: the crop's rectangle at its scale (or fitted into `area`),
 * and where that picture sits in the area (centred when smaller, top-left when larger).
 */
export function cropViewport(area: Size, crop: Crop): { viewport: Viewport; origin: Point } {
  const scale = crop.scale ?? fitScale(area, { width: crop.vw, height: crop.vh });
  const viewport: Viewport = { vx: crop.vx, vy: crop.vy, vw: crop.vw, vh: crop.vh, scale };
  const origin = {
    x: Math.max(0, (area.width - crop.vw * scale) / 2),
    y: Math.max(0, (area.height - crop.vh * scale) / 2),
  };
  return { viewport, origin };
}

let pageCrop: CropResult | undefined;

/** The crop of this page (parsed once: the address does not change while the viewer runs). */
export function currentCrop(): CropResult {
  pageCrop ??= parseCrop(globalThis.location?.search ?? '');
  return pageCrop;
}

/** The query parameter naming the desktop a viewer window shows. */
export const DESKTOP_URL_PARAM = 'desktop';

export type DesktopParam = { desktop: string | undefined } | { error: string };

/**
 * The desktop a URL's query names (undefined: none, so the person's default). A malformed one is
 * an error, never the default desktop: the window would otherwise show a desktop other than the
 * one its address names.
 */
export function parseDesktopParam(search: string): DesktopParam {
  const value = new URLSearchParams(search).get(DESKTOP_URL_PARAM);
  if (value === null) return { desktop: undefined };
  const parsed = TicketRequest.shape.desktop.safeParse(value);
  if (!parsed.success || parsed.data === undefined) {
    return {
      error: `This window's address names desktop "${value.slice(0, 80)}", which is not a desktop id (like dsk_…). Open the viewer again from your list of desktops, or remove ${DESKTOP_URL_PARAM}= from the address to see your default desktop.`,
    };
  }
  return { desktop: parsed.data };
}

let pageDesktop: DesktopParam | undefined;

/** The desktop this page shows (parsed once, like the crop). */
export function currentDesktopParam(): DesktopParam {
  pageDesktop ??= parseDesktopParam(globalThis.location?.search ?? '');
  return pageDesktop;
}

/**
 * The query of the viewer window for monitor `index` of a layout, on `desktop` (the one this
 * window shows when omitted): the crop's parameters and, when there is one, the desktop.
 */
export function monitorWindowQuery(
  monitor: LayoutMonitor,
  index: number,
  desktop: string | undefined = desktopOrUndefined(currentDesktopParam()),
): string {
  const query = viewerUrlFor(monitor, index);
  if (desktop === undefined) return query;
  const params = new URLSearchParams(query);
  params.set(DESKTOP_URL_PARAM, desktop);
  return `?${params.toString()}`;
}

function desktopOrUndefined(param: DesktopParam): string | undefined {
  return 'desktop' in param ? param.desktop : undefined;
}
