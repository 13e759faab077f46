// Receipt tokens of relayed input calls (packages/protocol's inputReceipt.ts), shared by this
// bridge's viewer hubs and tunnels: a hub takes a token for one call of the control window's
// person; the viewer asks its tunnel's receipt under it; when a tunnel answers it delivered, the
// hub hears at once (and settles the call without the viewer's round trip).
//
// A token counts only on the first tunnel that asks under it, and only when that tunnel is the
// call's person's, to the call's desktop, and may send input (no view grant): another person's
// tab or a view-only window that learned or guessed a token settles nothing (its own receipt is
// answered as any other). Tokens are 128 random bits, live only while their call waits, and are
// never reused. A tunnel on another bridge of a site never finds the token here: the viewer's
// own answer settles the call, as without tokens.
import { randomBytes } from 'node:crypto';
import {
  CallReceiptToken,
  receiptDelivered,
  type InputReceiptOutcome,
} from '@overlay-companion/protocol';

/** What a receipt's tunnel is, as the bridge admitted it. */
export interface ReceiptTunnel {
  readonly uuid: string;
  readonly desktopId: string;
  readonly personId: string;
  readonly readOnly: boolean;
}

/** A token taken for one call; release it once the call has settled, however. */
export interface IssuedReceipt {
  readonly token: string;
  release(): void;
}

interface Claim {
  desktopId: string;
  personId: string;
  delivered: () => void;
  /** The tunnel that asked under the token first (undefined: none yet). */
  tunnel: string | undefined;
}

export class CallReceipts {
  private readonly claims = new Map<string, Claim>();

  /** Open tokens (for tests and leak checks). */
  get size(): number {
    return this.claims.size;
  }

  /** What one desktop's hub takes tokens from (relay/earlySettlement.ts's DesktopReceipts). */
  forDesktop(desktopId: string): {
    issue(personId: string, delivered: () => void): IssuedReceipt;
  } {
    return { issue: (personId, delivered) => this.issue(desktopId, personId, delivered) };
  }

  /** A token for a call run by a window of `personId` on `desktopId`; `delivered` runs at most once. */
  issue(desktopId: string, personId: string, delivered: () => void): IssuedReceipt {
    const token = `r${randomBytes(16).toString('hex')}`;
    this.claims.set(token, { desktopId, personId, delivered, tunnel: undefined });
    return { token, release: () => this.claims.delete(token) };
  }

  /** `tunnel` asked a receipt under `id`: the first tunnel that may claim the token binds it. */
  asked(id: string, tunnel: ReceiptTunnel): void {
    if (!CallReceiptToken.safeParse(id).success) return;
    const claim = this.claims.get(id);
    // A tunnel that may not claim it changes nothing: the right one can still bind it.
    if (claim === undefined || claim.tunnel !== undefined || !mayClaim(claim, tunnel)) return;
    claim.tunnel = tunnel.uuid;
  }

  /** `tunnel` answered the receipt `id` with `outcome`; true when that settled its call. */
  answered(id: string, tunnel: ReceiptTunnel, outcome: InputReceiptOutcome): boolean {
    const claim = this.claims.get(id);
    if (claim === undefined || claim.tunnel !== tunnel.uuid) return false;
    this.claims.delete(id);
    // lost / refused: the viewer hears it too and answers the call with the error, as before.
    if (!receiptDelivered(outcome)) return false;
    claim.delivered();
    return true;
  }
}

function mayClaim(claim: Claim, tunnel: ReceiptTunnel): boolean {
  return (
    !tunnel.readOnly && tunnel.personId === claim.personId && tunnel.desktopId === claim.desktopId
  );
}
