// Shared building blocks for tool and message schemas: desktop geometry (coordinates, sizes,
// rectangles, monitor index), CSS colors, length-limited strings and the mode names.
// Everything here is a plain zod schema or a pure function; the strings that are never the
// person's text (ids, colours) say so (plainText, read by the tools' text-argument check).
import { z } from 'zod';
import { CSS_NAMED_COLORS } from './cssColors.js';
import { plainText } from './tools/textArgs.js';

/** Largest desktop coordinate we accept: X11 and RDP both cap a screen at 32767 px. */
export const MAX_COORDINATE = 32767;

/** A desktop-pixel coordinate: integer 0..32767. */
export const Coordinate = z.int().min(0).max(MAX_COORDINATE);

/** A desktop-pixel length: integer 1..32767. */
export const Size = z.int().min(1).max(MAX_COORDINATE);

/**
 * A coordinate as a tool takes it: any number 0..32767, rounded to the nearest pixel (so a point
 * scaled from a screenshot, e.g. 412.5, is accepted). Results always carry integers (Coordinate).
 */
export const InputCoordinate = z.number().min(0).max(MAX_COORDINATE).transform(Math.round);

/** A length as a tool takes it: any number 0.5..32767, rounded to the nearest pixel (>= 1). */
export const InputSize = z.number().min(0.5).max(MAX_COORDINATE).transform(Math.round);

/** Largest monitor index accepted; a sanity bound, far above any real multi-monitor layout. */
export const MAX_MONITOR_INDEX = 63;

/**
 * Index into `get_display_info().monitors`. When a tool gets one, its coordinates are relative to
 * that monitor's top-left corner instead of the desktop's (see `monitorToDesktop`).
 */
export const MonitorIndex = z
  .int()
  .min(0)
  .max(MAX_MONITOR_INDEX)
  .describe(
    "Monitor to work on, an index from get_display_info().monitors. When given, x/y are relative to that monitor's top-left corner; when omitted, x/y are desktop pixels.",
  );

export const Point = z.strictObject({
  x: Coordinate.describe('Horizontal position in pixels from the left edge.'),
  y: Coordinate.describe('Vertical position in pixels from the top edge.'),
});
export type Point = z.infer<typeof Point>;

/** A point as a tool takes it (numbers, rounded to the nearest pixel). */
export const InputPoint = z.strictObject({
  x: InputCoordinate.describe('Horizontal position in pixels from the left edge.'),
  y: InputCoordinate.describe('Vertical position in pixels from the top edge.'),
});

/** A rectangle as a tool takes it (numbers, rounded to the nearest pixel). */
export const InputRect = z.strictObject({
  x: InputCoordinate.describe('Left edge in pixels.'),
  y: InputCoordinate.describe('Top edge in pixels.'),
  width: InputSize.describe('Width in pixels.'),
  height: InputSize.describe('Height in pixels.'),
});

export const Rect = z.strictObject({
  x: Coordinate.describe('Left edge in pixels.'),
  y: Coordinate.describe('Top edge in pixels.'),
  width: Size.describe('Width in pixels.'),
  height: Size.describe('Height in pixels.'),
});
export type Rect = z.infer<typeof Rect>;

/** A rectangle that may be empty (width/height 0), e.g. a clamp result that fell off-screen. */
export const Bounds = z.strictObject({
  x: Coordinate.describe('Left edge in desktop pixels.'),
  y: Coordinate.describe('Top edge in desktop pixels.'),
  width: Coordinate.describe('Width in desktop pixels (0 when nothing is visible).'),
  height: Coordinate.describe('Height in desktop pixels (0 when nothing is visible).'),
});
export type Bounds = z.infer<typeof Bounds>;

/** Identifier strings the bridge or viewer mint (overlay ids, call ids, subscription ids). */
export const Id = plainText(
  z
    .string()
    .min(1)
    .max(128)
    .regex(/^[A-Za-z0-9_.:-]+$/, { error: 'must contain only letters, digits, _ . : -' }),
  'an id the bridge or the viewer made',
);

/** Milliseconds since the Unix epoch, as produced by `Date.now()`. */
export const EpochMs = z.int().min(0).max(Number.MAX_SAFE_INTEGER);

/** Monotonic sequence number of the overlay store (see messages.ts). */
export const Seq = z.int().min(0).max(Number.MAX_SAFE_INTEGER);

const HEX_COLOR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/;
const NAMED_COLOR_SET: ReadonlySet<string> = new Set(CSS_NAMED_COLORS);

/**
 * True for the CSS named colors (case-insensitive, as in CSS) and #rgb / #rrggbb / #rrggbbaa.
 * Other CSS color syntaxes (rgb(), hsl(), #rgba) are refused on purpose: a short fixed grammar
 * keeps what reaches the viewer's style attribute predictable.
 */
export function isCssColor(value: string): boolean {
  return HEX_COLOR.test(value) || NAMED_COLOR_SET.has(value.toLowerCase());
}

export const CssColor = plainText(
  z
    .string()
    .min(1)
    .max(32)
    .refine(isCssColor, {
      error:
        'must be a CSS color name such as "red" or "cornflowerblue", or #rgb, #rrggbb, #rrggbbaa',
    })
    .describe(
      'Fill color: a CSS color name (e.g. "red", "gold", "cornflowerblue") or hex #rgb, #rrggbb, #rrggbbaa.',
    ),
  'a colour name or hex code',
);

/**
 * Modes the person can put the session in; they decide what input tools may do
 * (see policy.ts for the exact rules).
 */
export const MODES = ['passive', 'assist', 'autopilot', 'composing', 'custom'] as const;
export const Mode = z
  .enum(MODES)
  .describe(
    'passive: overlays and screenshots only; assist: every input action asks the person; composing: typing and clipboard run freely, pointer actions ask; autopilot: input runs without asking; custom: per-tool allow/deny list.',
  );
export type Mode = z.infer<typeof Mode>;

export const MOUSE_BUTTONS = ['left', 'right', 'middle'] as const;
export const MouseButton = z.enum(MOUSE_BUTTONS).describe('Mouse button.');
export type MouseButton = z.infer<typeof MouseButton>;

/** A monitor rectangle as reported by get_display_info (desktop pixels). */
export interface MonitorOrigin {
  x: number;
  y: number;
}

/**
 * Converts a point or rectangle given relative to a monitor into desktop pixels. Tools that take
 * `monitor_index` use monitor-relative coordinates; the viewer calls this before acting.
 */
export function monitorToDesktop<T extends { x: number; y: number }>(
  value: T,
  monitor: MonitorOrigin | undefined,
): T {
  if (monitor === undefined) return value;
  return { ...value, x: value.x + monitor.x, y: value.y + monitor.y };
}

/** A monitor's rectangle in desktop pixels, as get_display_info lists it. */
export interface MonitorRect {
  index: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * The index of the monitor that holds `point` (for a rectangle: its centre); when none does (a
 * point in a gap of an L-shaped layout, or off the desktop), the nearest monitor; 0 when there
 * are no monitors. Every result's `monitor_index` is computed here.
 */
export function monitorIndexAt(
  monitors: readonly MonitorRect[],
  point: { x: number; y: number },
): number {
  let best: { index: number; distance: number } | undefined;
  for (const m of monitors) {
    const dx = Math.max(m.x - point.x, 0, point.x - (m.x + m.width - 1));
    const dy = Math.max(m.y - point.y, 0, point.y - (m.y + m.height - 1));
    const distance = dx * dx + dy * dy;
    if (distance === 0) return m.index;
    if (best === undefined || distance < best.distance) best = { index: m.index, distance };
  }
  return best?.index ?? 0;
}

/** The centre of a rectangle, rounded down to a pixel. */
export function rectCentre(rect: { x: number; y: number; width: number; height: number }): {
  x: number;
  y: number;
} {
  return {
    x: rect.x + Math.floor(Math.max(0, rect.width - 1) / 2),
    y: rect.y + Math.floor(Math.max(0, rect.height - 1) / 2),
  };
}

/**
 * Clamps a rectangle to the desktop; the result may be empty when the rectangle lies entirely
 * outside. draw_overlay reports these clamped bounds.
 */
export function clampRect(rect: Rect, desktop: { width: number; height: number }): Bounds {
  const x = Math.min(Math.max(rect.x, 0), desktop.width);
  const y = Math.min(Math.max(rect.y, 0), desktop.height);
  const right = Math.min(rect.x + rect.width, desktop.width);
  const bottom = Math.min(rect.y + rect.height, desktop.height);
  return { x, y, width: Math.max(0, right - x), height: Math.max(0, bottom - y) };
}
