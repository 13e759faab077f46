// Relaying the overlay store between viewers: the control viewer owns the store, so its
// overlay_created / overlay_removed / clear_overlays are forwarded to every mirror, and a
// mirror's request_sync is passed to the control viewer, whose sync_state answer goes back to
// every mirror still waiting for one. This module owns that waiting list; which viewer is the
// control one and how text reaches a socket stay with the hub (viewerHub.ts).
import { encodeBridgeMessage, type ViewerToBridge } from '@overlay-companion/protocol';

export type OverlayMessage = Extract<
  ViewerToBridge,
  { type: 'overlay_created' | 'overlay_removed' | 'clear_overlays' | 'request_sync' | 'sync_state' }
>;

/** How the relay reaches viewers; the hub keeps the sockets and the roles. */
export interface OverlayRoutes {
  /** The control viewer, if any. */
  control(): { send(text: string): void } | undefined;
  toViewer(viewerId: string, text: string): void;
  toMirrors(text: string): void;
}

export class OverlayRelay {
  /** Mirrors that asked for a sync and have not had a sync_state since. */
  private readonly syncWaiters = new Set<string>();

  constructor(private readonly routes: OverlayRoutes) {}

  /** Routes one overlay message from `viewerId`. Returns an error text to send back, if any. */
  handle(viewerId: string, isControl: boolean, message: OverlayMessage): string | undefined {
    switch (message.type) {
      case 'overlay_created':
      case 'overlay_removed':
      case 'clear_overlays':
        if (!isControl)
          return `${message.type} ignored: only the control viewer owns the overlay store`;
        this.routes.toMirrors(encodeBridgeMessage(message));
        return undefined;
      case 'request_sync': {
        const control = this.routes.control();
        if (isControl || control === undefined) return undefined;
        this.syncWaiters.add(viewerId);
        control.send(encodeBridgeMessage({ type: 'request_sync' }));
        return undefined;
      }
      case 'sync_state': {
        if (!isControl) return 'sync_state ignored: only the control viewer answers request_sync';
        const text = encodeBridgeMessage(message);
        for (const waiter of this.syncWaiters) this.routes.toViewer(waiter, text);
        this.syncWaiters.clear();
        return undefined;
      }
    }
  }

  /** A viewer left: it no longer waits for a sync. */
  forget(viewerId: string): void {
    this.syncWaiters.delete(viewerId);
  }
}
