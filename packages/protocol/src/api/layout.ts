// Each person's monitor layout (GET / PUT /api/layout): one rectangle of the remote desktop per
// physical screen, and the privacy masks the person drew. The bridge, the layout editor and the
// viewer share the schema and the two pure helpers here: the desktop size a layout asks for
// (layoutBounds) and the viewer URL that shows one monitor (viewerUrlFor).
import { z } from 'zod';
import { EpochMs } from '../common.js';
import { PrintableName } from './common.js';

/** Largest desktop coordinate: X11's and RDP's 16-bit signed limit. */
export const MAX_DESKTOP_PX = 32767;
export const MAX_LAYOUT_MONITORS = 16;
export const MAX_PRIVACY_MASKS = 32;
/** The viewer scales a monitor's pixels onto its screen within these (get_display_info's range). */
export const MIN_VIEWER_SCALE = 0.25;
export const MAX_VIEWER_SCALE = 8;

const Offset = z.int().min(0).max(MAX_DESKTOP_PX);
const Extent = z.int().min(1).max(MAX_DESKTOP_PX);

/** A width and a height in pixels (a desktop, or a physical screen in CSS pixels). */
export const DesktopExtent = z.strictObject({ width: Extent, height: Extent });
export type DesktopExtent = z.infer<typeof DesktopExtent>;

/** One monitor: the rectangle of the desktop (desktop pixels) its viewer window shows. */
export const LayoutMonitor = z.strictObject({
  x: Offset,
  y: Offset,
  width: Extent,
  height: Extent,
  label: PrintableName.optional(),
  /**
   * The physical screen's size in CSS pixels, when known: the viewer window's scale is
   * screen.width / width. Unknown: the window fits the rectangle to whatever size it has.
   */
  screen: DesktopExtent.optional(),
});
export type LayoutMonitor = z.infer<typeof LayoutMonitor>;

/** A region (desktop pixels) blacked out of everything the AI sees. */
export const PrivacyMask = z.strictObject({
  x: Offset,
  y: Offset,
  width: Extent,
  height: Extent,
  label: PrintableName.optional(),
});
export type PrivacyMask = z.infer<typeof PrivacyMask>;

interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The desktop size a layout asks for: the bounding box, from 0,0, of all its monitors. */
export function layoutBounds(layout: { monitors: readonly Rect[] }): DesktopExtent {
  let width = 0;
  let height = 0;
  for (const m of layout.monitors) {
    width = Math.max(width, m.x + m.width);
    height = Math.max(height, m.y + m.height);
  }
  return { width, height };
}

/** The viewer's scale for a monitor (screen CSS pixels per desktop pixel), or undefined = fit. */
export function monitorScale(monitor: Pick<LayoutMonitor, 'width' | 'screen'>): number | undefined {
  if (monitor.screen === undefined) return undefined;
  return Math.round((monitor.screen.width / monitor.width) * 10_000) / 10_000;
}

/** The viewer URL's query parameters (the seed's names, plus the monitor's index). */
export const VIEWER_URL_PARAMS = {
  vx: 'vx',
  vy: 'vy',
  vw: 'vw',
  vh: 'vh',
  scale: 'scale',
  monitor: 'monitor',
} as const;

/**
 * The query (`?vx=…&vy=…&vw=…&vh=…&scale=…&monitor=…`) that makes the viewer show monitor
 * `index` of a layout; scale is left out when the screen's size is unknown (the window fits).
 */
export function viewerUrlFor(monitor: LayoutMonitor, index: number): string {
  const params = new URLSearchParams();
  params.set(VIEWER_URL_PARAMS.vx, String(monitor.x));
  params.set(VIEWER_URL_PARAMS.vy, String(monitor.y));
  params.set(VIEWER_URL_PARAMS.vw, String(monitor.width));
  params.set(VIEWER_URL_PARAMS.vh, String(monitor.height));
  const scale = monitorScale(monitor);
  if (scale !== undefined) params.set(VIEWER_URL_PARAMS.scale, String(scale));
  params.set(VIEWER_URL_PARAMS.monitor, String(index));
  return `?${params.toString()}`;
}

function overlaps(a: Rect, b: Rect): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

const describe = (r: Rect) => `${r.width} × ${r.height} at ${r.x},${r.y}`;

/**
 * The rules a single field cannot say: every rectangle ends inside the largest desktop, monitors
 * do not overlap (a desktop pixel belongs to one monitor, so monitor_index is never ambiguous),
 * each monitor's scale is one the viewer can show, and masks lie inside the layout's bounds.
 */
function checkLayout(
  layout: { monitors: LayoutMonitor[]; masks: PrivacyMask[] },
  ctx: z.core.$RefinementCtx,
): void {
  const issue = (path: (string | number)[], message: string) =>
    ctx.addIssue({ code: 'custom', path, message });
  const checkEnds = (kind: 'monitors' | 'masks', rects: readonly Rect[]) =>
    rects.forEach((r, i) => {
      if (r.x + r.width > MAX_DESKTOP_PX) {
        issue(
          [kind, i, 'width'],
          `ends at x ${r.x + r.width}, past the largest desktop (${MAX_DESKTOP_PX} pixels): make it narrower or move it left`,
        );
      }
      if (r.y + r.height > MAX_DESKTOP_PX) {
        issue(
          [kind, i, 'height'],
          `ends at y ${r.y + r.height}, past the largest desktop (${MAX_DESKTOP_PX} pixels): make it shorter or move it up`,
        );
      }
    });
  checkEnds('monitors', layout.monitors);
  checkEnds('masks', layout.masks);

  layout.monitors.forEach((m, i) => {
    for (let j = 0; j < i; j++) {
      const other = layout.monitors[j];
      if (other !== undefined && overlaps(m, other)) {
        issue(
          ['monitors', i],
          `(${describe(m)}) overlaps monitor ${j} (${describe(other)}); monitors may touch but not overlap`,
        );
      }
    }
    const scale = monitorScale(m);
    if (scale !== undefined && (scale < MIN_VIEWER_SCALE || scale > MAX_VIEWER_SCALE)) {
      issue(
        ['monitors', i, 'width'],
        `shows ${m.width} desktop pixels on a screen ${m.screen?.width ?? 0} pixels wide (scale ${scale}); the viewer scales between ${MIN_VIEWER_SCALE} and ${MAX_VIEWER_SCALE}: make it ${scale > MAX_VIEWER_SCALE ? 'wider' : 'narrower'}`,
      );
    }
  });

  const bounds = layoutBounds(layout);
  layout.masks.forEach((mask, i) => {
    if (mask.x + mask.width > bounds.width || mask.y + mask.height > bounds.height) {
      issue(
        ['masks', i],
        `(${describe(mask)}) reaches outside the layout (${bounds.width} × ${bounds.height}); keep masks on the desktop`,
      );
    }
  });
}

/** A person's layout: 1–16 monitors (index = position) and up to 32 privacy masks. */
export const MonitorLayout = z
  .strictObject({
    monitors: z.array(LayoutMonitor).min(1).max(MAX_LAYOUT_MONITORS),
    masks: z.array(PrivacyMask).max(MAX_PRIVACY_MASKS).default([]),
  })
  .superRefine(checkLayout);
export type MonitorLayout = z.infer<typeof MonitorLayout>;

/** GET /api/layout: the saved layout (null before the first save) and the live desktop size. */
export const LayoutAnswer = z.object({
  layout: MonitorLayout.nullable(),
  updated_at: EpochMs.nullable(),
  /** The remote desktop's size right now, when the bridge knows it. */
  desktop: DesktopExtent.nullable(),
});
export type LayoutAnswer = z.infer<typeof LayoutAnswer>;

/** PUT /api/layout's body. */
export const PutLayoutBody = z.strictObject({ layout: MonitorLayout });
export type PutLayoutBody = z.input<typeof PutLayoutBody>;

/** PUT /api/layout's answer: what was stored. */
export const SavedLayout = z.object({ layout: MonitorLayout, updated_at: EpochMs });
export type SavedLayout = z.infer<typeof SavedLayout>;
