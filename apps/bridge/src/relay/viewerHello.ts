// What a window is told when it joins or its role changes (hello and what follows it): its role
// and the mode, a custom policy, the event interest meant for it, the bridge's overlays when it
// becomes the control window, and what the person's windows share (windowsShared.ts).
import {
  PROTOCOL_VERSION,
  encodeBridgeMessage,
  type BridgeToViewer,
  type Permissions,
} from '@overlay-companion/protocol';
import type { ModeState } from '../policy/modeState.js';
import type { EventInterest } from './eventInterest.js';
import { modeChangedMessage } from './modeSetRequest.js';
import type { OverlayRelay } from './overlayRelay.js';
import type { ViewerPeer, ViewerRole } from './viewerPeer.js';
import type { ViewerList } from './viewerList.js';
import type { SharedWindowState } from './windowsShared.js';

export interface HelloSources {
  mode: ModeState;
  permissions: () => Permissions;
  inCharge: () => string;
  interest: EventInterest;
  overlays: OverlayRelay;
  shared: SharedWindowState;
  windows: ViewerList;
}

export function sendHello(from: HelloSources, peer: ViewerPeer, role: ViewerRole): void {
  peer.send(
    encodeBridgeMessage({
      type: 'hello',
      protocol_version: PROTOCOL_VERSION,
      viewer_id: peer.id,
      mode: from.mode.mode,
      role,
      headless: peer.headless,
      permissions: from.permissions(),
    }),
  );
  // hello carries the mode but not a custom policy; send it so the viewer can show it.
  const snapshot = from.mode.snapshot;
  if (snapshot.mode === 'custom') peer.send(encodeBridgeMessage(modeChangedMessage(snapshot)));
  // A viewer forgets the interest on every hello and streams every type until told; tell it
  // at once (an empty list when nobody subscribed).
  peer.send(encodeBridgeMessage(interestFor(from, peer)));
  // A window taking control gets the overlays as the bridge has them: it keeps the newer of
  // that and its own store (and announces its own, which the bridge keeps if newer).
  // (and the overlays the bridge drew that the previous control window never took).
  if (role === 'control') for (const text of from.overlays.forNewControl()) peer.send(text);
  for (const message of from.shared.afterHello(role))
    if (from.windows.mayHear(peer, message)) peer.send(encodeBridgeMessage(message));
  // desktop_state follows from windowsChanged (attach) and chargeChanged, to every window.
}

/**
 * What `peer` is asked to stream: only the windows of the person in charge stream anything
 * (the bridge drops a watcher's events unread anyway); a watcher's window is told none, so it
 * sends nothing of its person's and never says an AI follows their pointer or reads their keys.
 */
export function interestFor(
  from: Pick<HelloSources, 'inCharge' | 'interest'>,
  peer: ViewerPeer,
): BridgeToViewer {
  return peer.personId === from.inCharge()
    ? from.interest.message()
    : { type: 'event_interest', events: [] };
}
