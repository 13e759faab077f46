// draw_overlay settled by the bridge. A plain draw changes nothing on the desktop and its result
// (overlay_id, bounds clamped to the desktop, monitor_index) follows from what the bridge knows
// as well as the control window does: the desktop's size (the server's `size` on the tunnel in
// use), the person's monitor layout (the one every window was told) and its overlay copy. So
// the bridge draws it — placeOverlay, the protocol's one definition the viewer uses too —, keeps
// it in its copy, hands the control window the overlay on its socket (overlay_put, in order with
// the tool calls that follow) and answers the AI without the viewer's round trip.
// Whenever it could not give the same answer the control window would, it does not settle and the
// call is relayed as before, so every refusal keeps its words: no control window here (none, or
// it is on another bridge of the site), the desktop's size not known (no tunnel shows it), the
// layout not loaded, a monitor_index the layout does not have, no room for one more overlay, or
// too many overlays the control window has not yet taken (it is slow or gone: the AI waits for it
// again rather than running ahead).
// The policy decided before this (toolCall.ts: decideCall, the one decision, fail-closed), and
// only an 'allow' is settled here; the control window's policyGate, which a settled draw skips,
// re-runs that same decideCall and allows a plain draw_overlay in every mode and with any toggles
// (settledOverlays.test.ts pins it), so skipping it refuses nothing it would have refused.
import {
  MAX_OVERLAYS,
  layoutMonitorRects,
  placeOverlay,
  type DrawOverlayArgs,
  type MonitorLayout,
  type Overlay,
  type ToolViewerResult,
} from '@overlay-companion/protocol';
import { randomBytes } from 'node:crypto';
import type { OverlayRelay } from './overlayRelay.js';

/**
 * At most this many overlays handed to the control window and not yet taken (its overlay_created
 * for them); past it draw_overlay is relayed and waits for the window like any call.
 */
export const MAX_UNTAKEN_OVERLAYS = 256;

/** What settling one draw needs, each as the hub knows it now. */
export interface DrawHereSources {
  /** The control window on this bridge, if any. */
  control: { readonly id: string } | undefined;
  /** The desktop's size on the tunnel in use; undefined when no tunnel shows it. */
  desktop: { width: number; height: number } | undefined;
  /** The layout the windows were told (null: none saved); undefined before it was loaded. */
  layout: MonitorLayout | null | undefined;
  overlays: OverlayRelay;
}

/** Ids of overlays the bridge draws: its own prefix, apart from every window's `ov_…`. */
function bridgeIds(): () => string {
  const prefix = randomBytes(4).toString('hex');
  let counter = 0;
  return () => `ovb_${prefix}_${++counter}`;
}

const newId = bridgeIds();

/**
 * Draws `args` here and hands the overlay to the control window; returns the draw_overlay result,
 * or undefined when the call must be relayed instead (see the header).
 */
export function drawHere(
  args: DrawOverlayArgs,
  from: DrawHereSources,
  now: number = Date.now(),
): ToolViewerResult<'draw_overlay'> | undefined {
  const { control, desktop, layout, overlays } = from;
  if (control === undefined || desktop === undefined || layout === undefined) return undefined;
  if (overlays.untaken >= MAX_UNTAKEN_OVERLAYS || overlays.size + 1 > MAX_OVERLAYS)
    return undefined;
  const monitors = layoutMonitorRects(desktop, layout);
  const monitor =
    args.monitor_index === undefined
      ? undefined
      : monitors.find((m) => m.index === args.monitor_index);
  // An index the layout does not have: the viewer's refusal names the monitors it has.
  if (args.monitor_index !== undefined && monitor === undefined) return undefined;
  const overlay: Overlay = placeOverlay(args, {
    desktop,
    monitors,
    monitor,
    overlayId: newId(),
    now,
  });
  overlays.put(control.id, overlay);
  return {
    overlay_id: overlay.overlay_id,
    bounds: overlay.bounds,
    monitor_index: overlay.monitor_index,
  };
}
