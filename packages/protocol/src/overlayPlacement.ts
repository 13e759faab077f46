// How a draw_overlay call becomes an overlay: its monitor-relative rectangle moved to desktop
// pixels, clamped to the desktop, the monitor that holds its centre, its times. One definition
// for the two places that draw: the control viewer (handlers/overlay.ts) and the bridge, which
// settles a plain draw_overlay itself when it knows the same desktop and monitors
// (apps/bridge/src/overlays/bridgeOverlays.ts) — so both answer the AI the same bounds.
import {
  clampRect,
  monitorIndexAt,
  monitorToDesktop,
  rectCentre,
  type MonitorRect,
} from './common.js';
import type { MonitorLayout } from './api/layout.js';
import type { DrawOverlayArgs, Overlay } from './tools/overlay.js';

/**
 * The monitors' rectangles a desktop of `desktop` size has under `layout`: the layout's, in its
 * order (index = position), or — with none — one monitor, the whole desktop. (The viewer adds
 * each one's scale for get_display_info; placing an overlay does not use it.)
 */
export function layoutMonitorRects(
  desktop: { width: number; height: number },
  layout: MonitorLayout | null,
): MonitorRect[] {
  if (layout !== null && layout.monitors.length > 0)
    return layout.monitors.map((m, index) => ({
      index,
      x: m.x,
      y: m.y,
      width: m.width,
      height: m.height,
    }));
  return [{ index: 0, x: 0, y: 0, width: desktop.width, height: desktop.height }];
}

/** Where and when an overlay is drawn. */
export interface OverlayPlace {
  desktop: { width: number; height: number };
  monitors: readonly MonitorRect[];
  /** The monitor the call named (resolved by the caller), or undefined for desktop pixels. */
  monitor: MonitorRect | undefined;
  overlayId: string;
  /** Epoch ms of the drawing clock. */
  now: number;
}

/** The overlay `args` draw at `place` (bounds clamped to the desktop). */
export function placeOverlay(args: DrawOverlayArgs, place: OverlayPlace): Overlay {
  const rect = monitorToDesktop(
    { x: args.x, y: args.y, width: args.width, height: args.height },
    place.monitor,
  );
  const bounds = clampRect(rect, place.desktop);
  return {
    overlay_id: place.overlayId,
    bounds,
    color: args.color,
    opacity: args.opacity,
    ...(args.label === undefined ? {} : { label: args.label }),
    click_through: args.click_through,
    monitor_index: monitorIndexAt(place.monitors, rectCentre(bounds)),
    created_at: place.now,
    ...(args.temporary_ms === undefined ? {} : { expires_at: place.now + args.temporary_ms }),
  };
}

/**
 * The same overlay as drawn by a clock that reads `now`: a temporary overlay keeps its
 * temporary_ms (expires_at - created_at). The control window re-stamps an overlay the bridge
 * drew, so its expiry follows the window's own clock as for one it drew itself.
 */
export function restampOverlay(overlay: Overlay, now: number): Overlay {
  const { expires_at, ...rest } = overlay;
  return {
    ...rest,
    created_at: now,
    ...(expires_at === undefined ? {} : { expires_at: now + (expires_at - overlay.created_at) }),
  };
}
