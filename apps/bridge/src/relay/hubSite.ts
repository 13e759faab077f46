// What one desktop's hub (viewerHub.ts) takes from the other bridges of a site, and sends them:
// the approvals the control window on another bridge lists (shown by the windows here, which may
// answer them: the answer goes to that bridge, which decides again), an answer given in a window
// on another bridge for the control window here (checked exactly as a window's own), the AI
// actions and the overlay changes that control window announces (drawn by every window here and
// kept in the overlay copy that feeds /ws/overlays) — only while no window here controls: then
// this bridge's own control window is what its windows follow — and a take-over pressed in a
// window on another bridge (heard by every window here, the control window included). The bus itself, the
// signatures and the leases are the site's (site/windowsAcrossSite.ts, site/controlLeases.ts).
import {
  encodeBridgeMessage,
  type BridgeToViewer,
  type DesktopAccessLevel,
  type ViewerToBridge,
} from '@overlay-companion/protocol';
import type { OverlayChange, OverlayRelay } from './overlayRelay.js';
import type { ViewerHubOptions } from './hubWiring.js';
import type { ViewerPeer } from './viewerPeer.js';
import type { SharedWindowState } from './windowsShared.js';

type ApprovalAnswer = Extract<ViewerToBridge, { type: 'approval_answer' }>;

/** The parts of the hub this needs. */
export interface HubSiteParts {
  control(): ViewerPeer | undefined;
  broadcast(message: BridgeToViewer): void;
  shared: SharedWindowState;
  overlays: OverlayRelay;
  noViewerGuidance(): string;
  /** The hub's own check and relay of an answer to its control window (as from a window). */
  answerHere(peer: ViewerPeer, message: ApprovalAnswer): string | undefined;
  /** The site's relay of an answer to the bridge whose control window lists the request. */
  answerElsewhere(): ViewerHubOptions['answerElsewhere'];
}

export class HubSite {
  constructor(private readonly hub: HubSiteParts) {}

  /**
   * The control window is on another bridge of the site, which listed the request here: the
   * answer goes there (it decides again), every window here stops showing the request at once,
   * and `peer` is told if the other bridge refused it. Returns an error text, if refused here.
   */
  answerThere(peer: ViewerPeer, message: ApprovalAnswer): string | undefined {
    const relay = this.hub.answerElsewhere();
    if (relay === undefined) return `approval_answer: ${this.hub.noViewerGuidance()}`;
    const verdict = this.hub.shared.answered(message.request_id);
    if ('error' in verdict) return verdict.error;
    const sent = relay({ personId: peer.personId, access: peer.access }, message);
    if (sent === undefined) return `approval_answer: ${this.hub.noViewerGuidance()}`;
    this.hub.broadcast(verdict.waiting);
    void sent.then((problem) => {
      if (problem !== undefined)
        peer.send(encodeBridgeMessage({ type: 'error', message: problem.slice(0, 500) }));
    });
    return undefined;
  }

  /** What the control window on another bridge lists: the windows here show it. */
  approvalsListedElsewhere(message: Extract<BridgeToViewer, { type: 'approvals_waiting' }>): void {
    if (this.hub.control() !== undefined) return;
    this.hub.broadcast(this.hub.shared.listedElsewhere(message));
  }

  /**
   * An answer given in a window on another bridge (its signature checked by the site): checked
   * here again exactly as a window's own (only the person in charge, never a view grant, only a
   * request the control window lists, once). Returns why not, if it was refused.
   */
  answerFromSite(
    person: { personId: string; access: DesktopAccessLevel },
    message: ApprovalAnswer,
  ): string | undefined {
    if (this.hub.control() === undefined)
      return 'approval_answer: the control window that asked has closed; nothing changed.';
    return this.hub.answerHere(
      { id: 'site', headless: false, ...person, send: () => undefined, close: () => undefined },
      message,
    );
  }

  /** What the AI did, announced by the control window on another bridge: every window draws it. */
  aiActionElsewhere(message: Extract<BridgeToViewer, { type: 'ai_action' }>): void {
    if (this.hub.control() === undefined) this.hub.broadcast(message);
  }

  /**
   * A window on another bridge took the desktop over or handed it back: every window here hears
   * it — the control window too, which holds the AI's input while the person has the desktop.
   */
  takeOverElsewhere(on: boolean): void {
    const message = this.hub.shared.takeOverElsewhere(on);
    if (message !== undefined) this.hub.broadcast(message);
  }

  /** An overlay change by the control window on another bridge: kept here and drawn by all. */
  overlaysElsewhere(change: OverlayChange): void {
    if (this.hub.control() !== undefined) return;
    this.hub.overlays.applyElsewhere(change);
  }

  /** Whether the overlay change being told came from another bridge (not to be told back). */
  get overlaysFromSite(): boolean {
    return this.hub.overlays.fromSite;
  }
}
