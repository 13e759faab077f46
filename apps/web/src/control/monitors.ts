// The monitors this viewer reports (get_display_info) and resolving a tool's monitor_index
// against them. With a saved layout they are its monitors, in its order, at the scale their
// screens show them; without one there is one monitor: the whole desktop, index 0, at the scale
// this window shows it (clamped to what the protocol allows).
import {
  ProtocolError,
  layoutMonitorRects,
  monitorScale,
  type Monitor,
  type MonitorLayout,
} from '@overlay-companion/protocol';

export interface DesktopSize {
  width: number;
  height: number;
}

/** Monitor.scale must lie in 0.25..8; a tiny window can show the desktop smaller than that. */
function clampScale(scale: number): number {
  if (!Number.isFinite(scale) || scale <= 0) return 1;
  return Math.min(8, Math.max(0.25, Math.round(scale * 1000) / 1000));
}

export function currentMonitors(
  desktop: DesktopSize,
  windowScale: number,
  layout: MonitorLayout | null = null,
): Monitor[] {
  // Where each monitor is: the protocol's one definition (the bridge places overlays by it too).
  return layoutMonitorRects(desktop, layout).map((rect) => {
    const m = layout?.monitors[rect.index];
    // Without a layout: the whole desktop at this window's scale. With one, the screen that
    // shows each monitor decides; unknown screens are shown 1:1 by convention.
    if (m === undefined) return { ...rect, scale: clampScale(windowScale) };
    return {
      ...rect,
      scale: clampScale(monitorScale(m) ?? 1),
      ...(m.label === undefined ? {} : { label: m.label }),
    };
  });
}

/** The monitor a tool named, or undefined for desktop coordinates; unknown index → error. */
export function resolveMonitor(
  monitors: readonly Monitor[],
  index: number | undefined,
): Monitor | undefined {
  if (index === undefined) return undefined;
  const monitor = monitors.find((m) => m.index === index);
  if (monitor === undefined) {
    throw new ProtocolError(
      'invalid_parameters',
      `monitor_index: there is no monitor ${index}; get_display_info lists monitors ${monitors.map((m) => m.index).join(', ')}.`,
    );
  }
  return monitor;
}
