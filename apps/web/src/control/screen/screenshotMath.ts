// Which desktop rectangle a take_screenshot captures and at what size, from its arguments:
// region (monitor-relative with monitor_index) clamped to the desktop, else the monitor, else
// the whole desktop (full_screen, the seed's default true), or with full_screen=false what the
// person sees in this window; then scale (up to 4) and max_dimension, the longer side capped at
// MAX_IMAGE_DIMENSION. The monitor reported is the one holding the region's centre. Pure, so the
// rules are unit-tested; capture.ts does the pixels.
import {
  MAX_IMAGE_DIMENSION,
  MAX_SCREENSHOT_SCALE,
  ProtocolError,
  clampRect,
  monitorIndexAt,
  monitorToDesktop,
  rectCentre,
  type Monitor,
  type Rect,
  type ToolArgs,
} from '@overlay-companion/protocol';
import { resolveMonitor, type DesktopSize } from '../monitors.js';

export interface CapturePlan {
  region: Rect;
  monitorIndex: number;
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
): { region: Rect; monitorIndex: number } {
  const region = chosenRegion(args, desktop, monitors, visible);
  return { region, monitorIndex: monitorIndexAt(monitors, rectCentre(region)) };
}

function chosenRegion(
  args: Pick<ToolArgs<'take_screenshot'>, 'region' | 'full_screen' | 'monitor_index'>,
  desktop: DesktopSize,
  monitors: readonly Monitor[],
  visible: Rect | { x: number; y: number; width: number; height: number },
): Rect {
  const monitor = resolveMonitor(monitors, args.monitor_index);
  if (args.region !== undefined) {
    return nonEmpty(clampRect(monitorToDesktop(args.region, monitor), desktop), 'region');
  }
  if (monitor !== undefined) {
    return nonEmpty(clampRect(monitor, desktop), `monitor ${monitor.index}`);
  }
  const whole = { x: 0, y: 0, width: desktop.width, height: desktop.height };
  if (args.full_screen !== false) return nonEmpty(whole, 'the desktop');
  const seen = visible.width >= 1 && visible.height >= 1 ? clampRect(visible, desktop) : whole;
  return nonEmpty(seen, 'the visible part of the desktop');
}

/** The requested scale, lowered further so the longer side fits max_dimension. */
export function captureScale(
  region: Rect,
  scale: number,
  maxDimension: number | undefined,
): number {
  const longer = Math.max(region.width, region.height);
  let s = Math.min(scale, MAX_IMAGE_DIMENSION / longer);
  if (maxDimension !== undefined) s = Math.min(s, maxDimension / longer);
  // The result schema needs ≥ 0.001; a 1-pixel-high image of a huge desktop is the floor anyway.
  return Math.max(0.001, Math.min(MAX_SCREENSHOT_SCALE, s));
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
