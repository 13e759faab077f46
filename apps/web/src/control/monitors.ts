// The monitors this viewer reports, and resolving a tool's monitor_index against them. Until
// the person's layouts exist there is one monitor: the whole desktop, index 0, at the scale the
// window currently shows it (clamped to what the protocol allows).
import { ProtocolError, type Monitor } from '@overlay-companion/protocol';

export interface DesktopSize {
  width: number;
  height: number;
}

/** Monitor.scale must lie in 0.25..8; a tiny window can show the desktop smaller than that. */
function monitorScale(windowScale: number): number {
  if (!Number.isFinite(windowScale) || windowScale <= 0) return 1;
  return Math.min(8, Math.max(0.25, Math.round(windowScale * 1000) / 1000));
}

export function currentMonitors(desktop: DesktopSize, windowScale: number): Monitor[] {
  return [
    {
      index: 0,
      x: 0,
      y: 0,
      width: desktop.width,
      height: desktop.height,
      scale: monitorScale(windowScale),
    },
  ];
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
