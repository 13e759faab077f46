// One person's overlays as the bridge sees them. The control viewer owns the store: its
// overlay_created / overlay_removed / clear_overlays go to every other window, and the bridge
// keeps its own copy (same seq) from them. The copy answers a window's request_sync at once,
// seeds the window that takes over control (so closing the control window loses no overlay,
// and a window opened after all were closed gets them back), and feeds /ws/overlays.
// A control viewer announces its whole store (sync_state) when it takes control; the newer of
// the two (by seq) wins on both sides, so a bridge restart or a stale promoted window converge.
// Which viewer is in control and how text reaches a socket stay with the hub (viewerHub.ts).
// In a site, the control window may be on another bridge: its changes come from the site's bus
// (applyElsewhere), are kept in the copy the same way and go to every window here and the feed;
// `fromSite` is true while they are told, so they are not told back to the site.
import {
  encodeBridgeMessage,
  type Overlay,
  type ViewerToBridge,
} from '@overlay-companion/protocol';

export type OverlayMessage = Extract<
  ViewerToBridge,
  { type: 'overlay_created' | 'overlay_removed' | 'clear_overlays' | 'request_sync' | 'sync_state' }
>;

/** What the overlays did, for the read-only feed (/ws/overlays). */
export type OverlayChange =
  | { type: 'overlay_created'; overlay: Overlay; seq: number }
  | { type: 'overlay_removed'; overlay_id: string; seq: number }
  | { type: 'clear_overlays'; seq: number }
  | { type: 'sync_state'; overlays: readonly Overlay[]; seq: number };

/** How the relay reaches viewers; the hub keeps the sockets and the roles. */
export interface OverlayRoutes {
  toViewer(viewerId: string, text: string): void;
  /** Every window but the control one. */
  toMirrors(text: string): void;
}

export class OverlayRelay {
  /** The copy, in drawing order (a Map keeps insertion order; re-created ids move last). */
  private readonly overlays = new Map<string, Overlay>();
  private seq = 0;
  private readonly listeners = new Set<(change: OverlayChange) => void>();
  /** Set while a change from another bridge is told to the listeners (not told back). */
  fromSite = false;

  constructor(private readonly routes: OverlayRoutes) {}

  /** Routes one overlay message from `viewerId`. Returns an error text to send back, if any. */
  handle(viewerId: string, isControl: boolean, message: OverlayMessage): string | undefined {
    switch (message.type) {
      case 'overlay_created':
      case 'overlay_removed':
      case 'clear_overlays':
        if (!isControl)
          return `${message.type} ignored: only the control viewer owns the overlay store`;
        this.apply(message);
        this.routes.toMirrors(encodeBridgeMessage(message));
        return undefined;
      case 'request_sync':
        this.routes.toViewer(viewerId, encodeBridgeMessage(this.syncMessage()));
        return undefined;
      case 'sync_state':
        if (!isControl) return 'sync_state ignored: only the control viewer announces its store';
        // An older store than ours (a promoted window that had missed changes): it adopts ours,
        // which the hub sent it when it took control.
        if (message.seq < this.seq) return undefined;
        this.replace(message.overlays, message.seq);
        this.routes.toMirrors(encodeBridgeMessage(this.syncMessage()));
        return undefined;
    }
  }

  /**
   * A change the control window on another bridge made: kept, and sent to the windows here (the
   * hub calls this only while no window here controls). An older store snapshot than the copy is
   * ignored, as from a window.
   */
  applyElsewhere(change: OverlayChange): void {
    if (change.type === 'sync_state' && change.seq < this.seq) return;
    this.fromSite = true;
    try {
      if (change.type === 'sync_state') this.replace(change.overlays, change.seq);
      else this.apply(change);
    } finally {
      this.fromSite = false;
    }
    this.routes.toMirrors(
      encodeBridgeMessage(change.type === 'sync_state' ? this.syncMessage() : change),
    );
  }

  /** The whole copy as a sync_state (for a window taking control, or asking). */
  syncMessage(): { type: 'sync_state'; seq: number; overlays: Overlay[] } {
    return { type: 'sync_state', seq: this.seq, overlays: [...this.overlays.values()] };
  }

  /** Follows every change (the /ws/overlays feed); returns the unsubscribe. */
  subscribe(listener: (change: OverlayChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get size(): number {
    return this.overlays.size;
  }

  private apply(
    message: Extract<
      OverlayMessage,
      { type: 'overlay_created' | 'overlay_removed' | 'clear_overlays' }
    >,
  ): void {
    switch (message.type) {
      case 'overlay_created':
        this.overlays.delete(message.overlay.overlay_id);
        this.overlays.set(message.overlay.overlay_id, message.overlay);
        break;
      case 'overlay_removed':
        this.overlays.delete(message.overlay_id);
        break;
      case 'clear_overlays':
        this.overlays.clear();
        break;
    }
    this.seq = Math.max(this.seq, message.seq);
    this.emit(message);
  }

  private replace(overlays: readonly Overlay[], seq: number): void {
    this.overlays.clear();
    for (const overlay of overlays) this.overlays.set(overlay.overlay_id, overlay);
    this.seq = seq;
    this.emit({ type: 'sync_state', overlays: [...this.overlays.values()], seq });
  }

  private emit(change: OverlayChange): void {
    for (const listener of this.listeners) listener(change);
  }
}
