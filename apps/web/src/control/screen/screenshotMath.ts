// Which desktop rectangle a take_screenshot captures and at what size, from its arguments:
// region (monitor-relative with monitor_index) clamped to the desktop, full_screen, a monitor,
// or by default what the person sees in this window; then scale and max_dimension. Pure, so the
// rules are unit-tested; capture.ts does the pixels.
import {
  ProtocolError,
  clampRect,
  monitorToDesktop,
  type Monitor,
  type Rect,
  type ToolArgs,
} from '@overlay-companion/protocol';
import { resolveMonitor, type DesktopSize } from '../monitors.js';

export interface CapturePlan {
  region: Rect;
  monitorIndex: number | null;
  /** Image pixels per desktop pixel actually applied. */
  scale: number;
  width: number;
  height: number;
}

function nonEmpty(
  rect: { x: number; y: number; width: number; height: number },
  what: string,
): Rect {
  if (rect.width < 1 || rect.height < 1) {
    throw new ProtocolError(
      'invalid_parameters',
      `${what} lies outside the desktop, so there is nothing to capture; use get_display_info for the desktop size.`,
    );
  }
  return rect;
}

export function captureRegion(
  args: Pick<ToolArgs<'take_screenshot'>, 'region' | 'full_screen' | 'monitor_index'>,
  desktop: DesktopSize,
  monitors: readonly Monitor[],
  visible: Rect | { x: number; y: number; width: number; height: number },
): { region: Rect; monitorIndex: number | null } {
  const monitor = resolveMonitor(monitors, args.monitor_index);
  if (args.region !== undefined) {
    const rect = monitorToDesktop(args.region, monitor);
    return {
      region: nonEmpty(clampRect(rect, desktop), 'region'),
      monitorIndex: monitor?.index ?? null,
    };
  }
  const whole = { x: 0, y: 0, width: desktop.width, height: desktop.height };
  if (args.full_screen) return { region: nonEmpty(whole, 'the desktop'), monitorIndex: null };
  if (monitor !== undefined) {
    return {
      region: nonEmpty(clampRect(monitor, desktop), `monitor ${monitor.index}`),
      monitorIndex: monitor.index,
    };
  }
  const seen = visible.width >= 1 && visible.height >= 1 ? clampRect(visible, desktop) : whole;
  return { region: nonEmpty(seen, 'the visible part of the desktop'), monitorIndex: null };
}

/** The requested scale, lowered further so the longer side fits max_dimension. */
export function captureScale(
  region: Rect,
  scale: number,
  maxDimension: number | undefined,
): number {
  let s = scale;
  if (maxDimension !== undefined)
    s = Math.min(s, maxDimension / Math.max(region.width, region.height));
  // The result schema needs ≥ 0.001; a 1-pixel-high image of a huge desktop is the floor anyway.
  return Math.max(0.001, Math.min(1, s));
}

export function planCapture(
  args: ToolArgs<'take_screenshot'>,
  desktop: DesktopSize,
  monitors: readonly Monitor[],
  visible: { x: number; y: number; width: number; height: number },
): CapturePlan {
  const { region, monitorIndex } = captureRegion(args, desktop, monitors, visible);
  const scale = captureScale(region, args.scale, args.max_dimension);
  return {
    region,
    monitorIndex,
    scale,
    width: Math.max(1, Math.round(region.width * scale)),
    height: Math.max(1, Math.round(region.height * scale)),
  };
}
