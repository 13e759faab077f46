// The AI's overlays on the recording's event track: each desktop's overlays as its windows show
// them (the hub's copy), and the events a change makes — overlay.drawn for one created or
// changed, overlay.removed for one gone; a full sync makes events only for what differs. A
// recording that starts gets the overlays already on screen, drawn from its first moment.
import type { Overlay } from '@overlay-companion/protocol';
import type { RecordingEventInput } from '@overlay-companion/recording';
import type { OverlayChange, OverlayPut } from '../relay/overlayRelay.js';

export class OverlayTrack {
  private readonly overlays = new Map<string, Map<string, Overlay>>();

  /** The events `change` makes on desktop `desktopId`, in order; its copy follows the change. */
  changed(desktopId: string, change: OverlayChange | OverlayPut): RecordingEventInput[] {
    const current = this.overlays.get(desktopId) ?? new Map<string, Overlay>();
    this.overlays.set(desktopId, current);
    const events: RecordingEventInput[] = [];
    const drawn = (overlay: Overlay): void => {
      const before = current.get(overlay.overlay_id);
      current.set(overlay.overlay_id, overlay);
      // The window's echo of an overlay the bridge handed it draws nothing new.
      if (before === undefined || !sameOnScreen(before, overlay))
        events.push(overlayDrawn(overlay));
    };
    const removed = (id: string): void => {
      if (current.delete(id)) events.push({ kind: 'overlay.removed', id });
    };
    switch (change.type) {
      case 'overlay_put':
      case 'overlay_created':
        drawn(change.overlay);
        break;
      case 'overlay_removed':
        removed(change.overlay_id);
        break;
      case 'clear_overlays':
        for (const id of [...current.keys()]) removed(id);
        break;
      case 'sync_state': {
        const next = new Set(change.overlays.map((o) => o.overlay_id));
        for (const id of [...current.keys()]) if (!next.has(id)) removed(id);
        for (const overlay of change.overlays)
          if (!sameOverlay(current.get(overlay.overlay_id), overlay)) drawn(overlay);
        break;
      }
    }
    return events;
  }

  /** overlay.drawn at `t` for every overlay on desktop `desktopId`'s screen now. */
  onScreen(desktopId: string, t: number): RecordingEventInput[] {
    return [...(this.overlays.get(desktopId)?.values() ?? [])].map((overlay) => ({
      ...overlayDrawn(overlay),
      t,
    }));
  }
}

function overlayDrawn(overlay: Overlay): RecordingEventInput {
  const { x, y, width, height } = overlay.bounds;
  return {
    kind: 'overlay.drawn',
    id: overlay.overlay_id,
    rect: { x, y, width, height },
    ...(overlay.label === undefined ? {} : { label: overlay.label }),
    color: overlay.color,
  };
}

/** Whether two versions of an overlay make the same overlay.drawn event (what the player draws). */
function sameOnScreen(a: Overlay, b: Overlay): boolean {
  return JSON.stringify(overlayDrawn(a)) === JSON.stringify(overlayDrawn(b));
}

function sameOverlay(a: Overlay | undefined, b: Overlay): boolean {
  return a !== undefined && JSON.stringify(a) === JSON.stringify(b);
}
