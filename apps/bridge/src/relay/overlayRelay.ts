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
// The bridge may draw an overlay itself (settledOverlays.ts, a plain draw_overlay): put() keeps it
// in the copy and hands it to the control window (overlay_put); the feed, the mirrors and the
// site hear of it when that window's overlay_created comes back, as for any overlay. The seq
// stays the window's to give: a seq the bridge took could be the one the window gives its own
// change at the same moment (an expiry), and a mirror holding one would miss the other. Until
// the window announces it the overlay is "untaken": a window that takes control gets it again
// after the copy (forNewControl), so an overlay the AI was told about is not lost with a window
// that closed, or lost control, before taking it.
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

/**
 * An overlay the bridge drew, at the moment it is handed to the control window (put): it has no
 * seq yet (the window gives it one, and its overlay_created follows as an OverlayChange).
 */
export interface OverlayPut {
  type: 'overlay_put';
  overlay: Overlay;
}

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
  /** Overlays handed to the control window (put) that it has not yet announced, by id. */
  private readonly untakenPuts = new Map<string, Overlay>();
  private readonly putListeners = new Set<(overlay: Overlay) => void>();

  constructor(private readonly routes: OverlayRoutes) {}

  /** Routes one overlay message from `viewerId`. Returns an error text to send back, if any. */
  handle(viewerId: string, isControl: boolean, message: OverlayMessage): string | undefined {
    switch (message.type) {
      case 'overlay_created':
      case 'overlay_removed':
      case 'clear_overlays':
        if (!isControl)
          return `${message.type} ignored: only the control viewer owns the overlay store`;
        this.taken(message);
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

  /**
   * An overlay the bridge drew: kept in the copy (the seq is the window's to give) and handed to
   * the control window `controlId` (after whatever was sent it before, so a later call finds it).
   */
  put(controlId: string, overlay: Overlay): void {
    this.overlays.delete(overlay.overlay_id);
    this.overlays.set(overlay.overlay_id, overlay);
    this.untakenPuts.set(overlay.overlay_id, overlay);
    this.routes.toViewer(controlId, this.putMessage(overlay));
    for (const listener of this.putListeners) listener(overlay);
  }

  /**
   * Follows the overlays the bridge hands a control window (put), at the moment they are handed.
   * The recording's event track marks them then: the window draws a put overlay before any call
   * sent after it, while its overlay_created (which the feed and the mirrors wait for) can come
   * back after the AI's next action was already recorded.
   */
  subscribePuts(listener: (overlay: Overlay) => void): () => void {
    this.putListeners.add(listener);
    return () => this.putListeners.delete(listener);
  }

  private putMessage(overlay: Overlay): string {
    return encodeBridgeMessage({ type: 'overlay_put', overlay, seq: this.seq + 1 });
  }

  /** How many overlays were handed to the control window and not yet announced by it. */
  get untaken(): number {
    return this.untakenPuts.size;
  }

  /**
   * What a window taking control is sent: the copy, then every overlay handed to a control
   * window that did not announce it (it closed first, or lost control): the new one adds them
   * (an id it already holds is replaced, not doubled).
   */
  forNewControl(): string[] {
    const texts = [encodeBridgeMessage(this.syncMessage())];
    for (const overlay of this.untakenPuts.values()) texts.push(this.putMessage(overlay));
    return texts;
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

  /** The control window announced a change: an overlay it names is no longer untaken. */
  private taken(
    message: Extract<
      OverlayMessage,
      { type: 'overlay_created' | 'overlay_removed' | 'clear_overlays' }
    >,
  ): void {
    if (this.untakenPuts.size === 0) return;
    // A clear says nothing of them: the window may clear (the person's button) before it reads
    // an overlay_put already on its way, which then draws after the clear.
    if (message.type === 'overlay_created') this.untakenPuts.delete(message.overlay.overlay_id);
    else if (message.type === 'overlay_removed') this.untakenPuts.delete(message.overlay_id);
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
