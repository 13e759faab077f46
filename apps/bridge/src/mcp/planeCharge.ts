// Who may hold a desktop's charge and who may move it: its owner or an admin may take it; only
// the person in charge may hand it over, and only to someone with control of the desktop who has
// a window open on it; never a view grant, never the headless viewer. Moving it is the plane's.
import type { DesktopAccessLevel, ViewerToBridge } from '@overlay-companion/protocol';
import type { ViewerPeer } from '../relay/viewerPeer.js';

export type ChargeRequest = Extract<ViewerToBridge, { type: 'charge' }>;

/** Who may take the charge without it being handed over. */
export function mayTakeCharge(access: DesktopAccessLevel): boolean {
  return access === 'owner' || access === 'admin';
}

/** Who may be in charge at all (never a view grant). */
export function mayBeInCharge(access: DesktopAccessLevel): boolean {
  return access !== 'view';
}

/**
 * What a window's charge request does: `moveTo` the person the charge goes to, `refused` the
 * words sent back, or neither (nothing to do: the person already holds it).
 */
export function judgeChargeRequest(
  peer: ViewerPeer,
  message: ChargeRequest,
  charge: { id: string; name: string },
  watchers: ReadonlyArray<{ personId: string; access: DesktopAccessLevel }>,
): { moveTo?: string; refused?: string } {
  if (peer.headless)
    return { refused: 'charge: the headless viewer cannot take or hand over the charge.' };
  if (message.action === 'take') {
    if (peer.personId === charge.id) return {};
    if (!mayTakeCharge(peer.access))
      return {
        refused: `charge: only the desktop's owner or an admin may take the charge; ask ${charge.name} to hand it over.`,
      };
    return { moveTo: peer.personId };
  }
  if (peer.personId !== charge.id)
    return { refused: `charge: only ${charge.name}, who is in charge, may hand the charge over.` };
  const to = message.to;
  if (to === undefined)
    return { refused: 'charge: hand_over needs `to`, the person to hand the charge to.' };
  const target = watchers.find((w) => w.personId === to);
  if (target === undefined || !mayBeInCharge(target.access))
    return {
      refused:
        'charge: hand the charge only to someone with control of this desktop who has a window open on it.',
    };
  return { moveTo: to };
}
