// Keeping this window's overlay store in step with the person's other windows. The control
// window's store is the truth (it runs the overlay tools); mirrors follow its changes one by
// one and ask for the whole store (request_sync → sync_state) when they see a gap; a window
// handed control keeps the newer of its own store and the bridge's copy. An overlay the bridge
// drew itself (overlay_put) goes into the control window's store like one drawn here.
// A mirror gets one message per overlay (a batch of 20 is 20 messages, each its own task): with
// a Burst (the browser's: channelBurst), the changes of a burst are gathered and applied in one
// store update once the messages already waiting have run (store/remoteChanges.ts), instead of
// rebuilding a store of thousands per message; any other overlay message, and a hello, apply what
// is gathered first, so the order holds.
import type { BridgeToViewer, ViewerToBridge } from '@overlay-companion/protocol';
import type { StoreApi } from 'zustand/vanilla';
import { afterQueued } from '../overlay/afterQueued.js';
import type { ViewerRole } from '../store/control.js';
import {
  applyRemote,
  overlayData,
  type OverlayState,
  type RemoteChange,
} from '../store/overlays.js';
import { applyRemoteChanges } from '../store/remoteChanges.js';
import type { OverlayService } from './handlers/overlay.js';

export interface OverlaySyncDeps {
  send: (message: ViewerToBridge) => boolean;
  overlayStore: StoreApi<OverlayState>;
  overlays: OverlayService;
  /** Without one, a mirror applies each change at once. */
  burst?: Burst;
}

/** Where a mirror gathers a burst of changes, and when it applies them. */
export interface Burst {
  /** Runs `apply` after the tasks already queued (the rest of the burst's messages). */
  later: (apply: () => void) => void;
  gathered: RemoteChange[];
}

/** The browser's Burst: the socket's burst is applied once, before the next frame's paint. */
export function channelBurst(): Burst {
  return { later: afterQueued(), gathered: [] };
}

/** A mirror's gathered changes, applied in one store update (a gap asks for a snapshot). */
function applyGathered(deps: OverlaySyncDeps): void {
  const changes = deps.burst?.gathered;
  if (changes === undefined || changes.length === 0) return;
  const { overlayStore } = deps;
  const before = overlayData(overlayStore);
  const { data, gap } = applyRemoteChanges(before, changes.splice(0));
  if (data !== before) overlayStore.getState().replaced(data);
  if (gap) deps.send({ type: 'request_sync' });
}

const isRemoteChange = (
  message: OverlaySyncMessage,
): message is OverlaySyncMessage & RemoteChange =>
  message.type === 'overlay_created' ||
  message.type === 'overlay_removed' ||
  message.type === 'clear_overlays';

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
  applyGathered(deps);
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
  const { burst } = deps;
  if (burst !== undefined && role !== 'control' && isRemoteChange(message)) {
    if (burst.gathered.push(message) === 1) burst.later(() => applyGathered(deps));
    return;
  }
  applyGathered(deps);
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
