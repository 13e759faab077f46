// The desktop_state message one window is told: the desktop, who is in charge, who watches (with
// a cap on the list), what this window's person may do about the charge, and the recording as
// this window may see it. Each window gets its own (`you` differs).
import {
  MAX_LISTED_WATCHERS,
  type BridgeToViewer,
  type DesktopAccessLevel,
  type DesktopRecordingState,
} from '@overlay-companion/protocol';
import type { ViewerPeer } from '../relay/viewerPeer.js';
import { mayBeInCharge, mayTakeCharge } from './planeCharge.js';

export interface DesktopFacts {
  desktopId: string;
  desktopName: string;
  charge: { id: string; name: string };
  watchers: ReadonlyArray<{ personId: string; access: DesktopAccessLevel }>;
  /** A display name of a person seen here. */
  nameOf(personId: string): string | undefined;
  /** What this window is told about the recording (recordings/recordingLifecycle.ts), if anything. */
  recording: (viewer: { inCharge: boolean }) => DesktopRecordingState | undefined;
}

export function desktopStateFor(peer: ViewerPeer, facts: DesktopFacts): BridgeToViewer {
  const { watchers, charge } = facts;
  const youInCharge = peer.personId === charge.id;
  const name = (id: string): string => facts.nameOf(id) ?? 'someone';
  const recording = facts.recording({ inCharge: youInCharge });
  return {
    type: 'desktop_state',
    desktop: { id: facts.desktopId, name: facts.desktopName.slice(0, 200) },
    in_charge: { id: charge.id, name: charge.name.slice(0, 200) },
    watchers: watchers
      .slice(0, MAX_LISTED_WATCHERS)
      .map((w) => ({ id: w.personId, name: name(w.personId).slice(0, 200), access: w.access })),
    more_watchers: Math.max(0, watchers.length - MAX_LISTED_WATCHERS),
    you: {
      access: peer.access,
      in_charge: youInCharge,
      may_take_charge: !youInCharge && mayTakeCharge(peer.access),
      may_hand_over_to: youInCharge
        ? watchers
            .filter((w) => w.personId !== peer.personId && mayBeInCharge(w.access))
            .slice(0, MAX_LISTED_WATCHERS)
            .map((w) => ({ id: w.personId, name: name(w.personId).slice(0, 200) }))
        : [],
    },
    ...(recording === undefined
      ? {}
      : {
          recording: {
            ...recording,
            stopped_reason: recording.stopped_reason?.slice(0, 500) ?? null,
          },
        }),
  };
}
