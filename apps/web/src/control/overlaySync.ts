// Keeping this window's overlay store in step with the person's other windows. The control
// window's store is the truth (it runs the overlay tools); mirrors follow its changes one by
// one and ask for the whole store (request_sync → sync_state) when they see a gap; a window
// handed control keeps the newer of its own store and the bridge's copy. An overlay the bridge
// drew itself (overlay_put) goes into the control window's store like one drawn here.
import type { BridgeToViewer, ViewerToBridge } from '@overlay-companion/protocol';
import type { StoreApi } from 'zustand/vanilla';
import type { ViewerRole } from '../store/control.js';
import { applyRemote, overlayData, type OverlayState } from '../store/overlays.js';
import type { OverlayService } from './handlers/overlay.js';

export interface OverlaySyncDeps {
  send: (message: ViewerToBridge) => boolean;
  overlayStore: StoreApi<OverlayState>;
  overlays: OverlayService;
}

export type OverlaySyncMessage = Extract<
  BridgeToViewer,
  {
    type:
      | 'request_sync'
      | 'sync_state'
      | 'overlay_created'
      | 'overlay_removed'
      | 'clear_overlays'
      | 'overlay_put';
  }
>;

/** hello told this window its role (it was the control window before when `wasControl`). */
export function overlaysOnHello(
  deps: OverlaySyncDeps,
  role: ViewerRole,
  wasControl: boolean,
): void {
  if (role === 'mirror') {
    if (wasControl) deps.overlays.dispose();
    deps.send({ type: 'request_sync' });
    return;
  }
  // Handed control with the store kept as a mirror: expire what is due, re-arm the rest.
  if (!wasControl) deps.overlays.adoptStore();
  // Tell the bridge what we hold: it keeps the newer of this and its own copy (which it sends
  // us with the hello; we keep the newer too, in overlaySyncMessage).
  deps.send(deps.overlays.snapshot());
}

/** One overlay-store message from the bridge, for a window whose role is `role`. */
export function overlaySyncMessage(
  deps: OverlaySyncDeps,
  role: ViewerRole | null,
  message: OverlaySyncMessage,
): void {
  const { overlayStore } = deps;
  switch (message.type) {
    case 'request_sync':
      if (role === 'control') deps.send(deps.overlays.snapshot());
      return;
    case 'sync_state':
      if (role !== 'control') {
        overlayStore.getState().replaced({ overlays: message.overlays, seq: message.seq });
      } else if (message.seq > overlayStore.getState().seq) {
        // The bridge's copy is newer than what this window held when it took control (it
        // missed changes as a mirror, or it is a new window): take it over, timers and all.
        overlayStore.getState().replaced({ overlays: message.overlays, seq: message.seq });
        deps.overlays.adoptStore();
      }
      return;
    case 'overlay_put':
      // An overlay the bridge drew (it answered the AI): the control window adds it to the store
      // it owns. A window that is no longer in control ignores it: the bridge hands it again to
      // the window that took control (OverlayRelay.forNewControl).
      if (role === 'control') deps.overlays.accept(message.overlay, message.seq);
      return;
    default: {
      if (role === 'control') return; // our own store is the truth
      const applied = applyRemote(overlayData(overlayStore), message);
      if (applied.outcome === 'applied') overlayStore.getState().replaced(applied.data);
      else if (applied.outcome === 'gap') deps.send({ type: 'request_sync' });
    }
  }
}
