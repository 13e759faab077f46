// What each desktop's plane tells, and asks, beyond the desktop control, as the bridge wires it
// (bridge.ts): the recording's indicator and event track (overlays, take-over), the receipts
// this bridge's tunnels answer, and the size a tunnel in use shows. recordings/ imports mcp/, not
// back: so these are wired here, not inside the desktop control.
import type { DesktopControlOptions } from '../mcp/desktopControl.js';
import type { Recordings } from '../recordings/recordingLifecycle.js';
import type { CallReceipts } from '../tunnel/callReceipts.js';
import type { TunnelRegistry } from '../tunnel/registry.js';

export function planeHooks(deps: {
  callReceipts: CallReceipts;
  recordings: Recordings;
  /** The running bridge's tunnels (undefined until it listens). */
  tunnels: () => TunnelRegistry | undefined;
}): NonNullable<DesktopControlOptions['planeHooks']> {
  const { callReceipts, recordings, tunnels } = deps;
  return {
    callReceipts,
    recording: (desktopId, viewer) => recordings.indicator(desktopId, viewer),
    overlaysChanged: (desktopId, change) => recordings.overlaysChanged(desktopId, change),
    // The size a tunnel in use shows: a plain draw_overlay is settled here with it
    // (relay/settledOverlays.ts). Called on calls, once the bridge runs.
    desktopSize: (desktopId) =>
      tunnels()?.inUse(desktopId) === true ? tunnels()?.desktopSize(desktopId) : undefined,
    takeOverChanged: (desktopId, on, by) =>
      recordings.event(desktopId, {
        kind: on ? 'takeover' : 'handback',
        ...(by === undefined ? {} : { by }),
      }),
  };
}
