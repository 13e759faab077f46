// The windows connected to one desktop's hub, in connection order, and which of them controls;
// sending to them, with the one rule on what a window may hear: the questions waiting for the
// person in charge (what the AI wants to type, where it wants to click) reach only that person's
// windows. Who becomes the control window is decided by the hub (viewerHub.ts).
import { encodeBridgeMessage, type BridgeToViewer } from '@overlay-companion/protocol';
import type { ViewerPeer, ViewerRole } from './viewerPeer.js';

export class ViewerList {
  /** In connection order: the oldest mirror is the first non-control entry. */
  readonly all: ViewerPeer[] = [];
  controlId: string | undefined;

  constructor(private readonly inCharge: () => string) {}

  get control(): ViewerPeer | undefined {
    return this.all.find((v) => v.id === this.controlId);
  }

  peer(id: string): ViewerPeer | undefined {
    return this.all.find((v) => v.id === id);
  }

  roleOf(viewerId: string): ViewerRole | undefined {
    if (!this.all.some((v) => v.id === viewerId)) return undefined;
    return viewerId === this.controlId ? 'control' : 'mirror';
  }

  /** The people with a window open, in the order their first window came. */
  watchers(): Array<{ personId: string; access: ViewerPeer['access'] }> {
    const seen = new Map<string, ViewerPeer['access']>();
    for (const v of this.all) if (!seen.has(v.personId)) seen.set(v.personId, v.access);
    return [...seen].map(([personId, access]) => ({ personId, access }));
  }

  /** Whether `personId` has a window open here. */
  watching(personId: string): boolean {
    return this.all.some((v) => v.personId === personId);
  }

  /** Every window but `viewerId` (the one that said it). */
  toOthers(viewerId: string, message: BridgeToViewer): void {
    const text = encodeBridgeMessage(message);
    for (const v of this.all) if (v.id !== viewerId && this.mayHear(v, message)) v.send(text);
  }

  broadcast(message: BridgeToViewer): void {
    const text = encodeBridgeMessage(message);
    for (const v of this.all) if (this.mayHear(v, message)) v.send(text);
  }

  /** Every window but the control window (already encoded: the overlay relay's messages). */
  toMirrors(text: string): void {
    for (const v of this.all) if (v.id !== this.controlId) v.send(text);
  }

  /**
   * The questions waiting for the person in charge are theirs: a watcher's window hears only
   * that nothing waits (which clears a list it kept from when its person was in charge).
   */
  mayHear(peer: ViewerPeer, message: BridgeToViewer): boolean {
    if (message.type !== 'approvals_waiting' || message.requests.length === 0) return true;
    return peer.personId === this.inCharge();
  }

  /**
   * Why `peer` may not answer approvals or take control here, if it may not: only a person's
   * own window (not the headless viewer) of the person in charge, with more than a view grant.
   */
  notInCharge(peer: ViewerPeer, what: string): string | undefined {
    if (peer.headless) return `${what}: the headless viewer has no person to answer for.`;
    if (peer.personId !== this.inCharge() || peer.access === 'view')
      return `${what}: only a window of the person in charge of this desktop may do this; nothing changed.`;
    return undefined;
  }
}
