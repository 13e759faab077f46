// What a desktop's viewer hub is given (ViewerHubOptions: the mode, who is in charge, the
// person's toggles, and in a site how the other bridges are reached) and whom it tells what
// happened (HubListener: events, Stop, the charge, standing permissions, approvals, AI actions,
// take over), so the plane that owns the hub (mcp/desktopPlanes.ts) wires both in one place.
import type {
  BridgeToViewer,
  DesktopAccessLevel,
  Mode,
  Permissions,
  UiEvent,
  ViewerToBridge,
} from '@overlay-companion/protocol';
import type { Logger } from 'pino';
import type { ModeState } from '../policy/modeState.js';
import type { PendingCallInfo } from './callRelay.js';
import type { HeadlessLauncher } from './noViewer.js';
import type { DesktopReceipts } from './earlySettlement.js';
import type { ViewerPeer } from './viewerPeer.js';

export interface ViewerHubOptions {
  mode: ModeState;
  /** The person in charge of the desktop: only their windows control (run calls, answer). */
  inCharge: () => string;
  /** What the desktop_state for this window says (who is in charge, who watches, what it may do). */
  describeDesktop?: (peer: ViewerPeer) => BridgeToViewer | undefined;
  /** The person's permission toggles right now. */
  permissions: () => Permissions;
  logger: Logger;
  /** Base URL the person opens, for the "no viewer" guidance. */
  viewerUrl: () => string;
  /** With serve --headless-viewer: the launcher that brings the headless viewer back. */
  headlessLauncher?: () => HeadlessLauncher | undefined;
  /**
   * In a site: relays an approval answered here to the bridge whose control window lists it
   * (site/remoteApprovals.ts); resolves to why it was refused there, if it was.
   */
  answerElsewhere?: (
    person: { personId: string; access: DesktopAccessLevel },
    message: Extract<ViewerToBridge, { type: 'approval_answer' }>,
  ) => Promise<string | undefined> | undefined;
  /**
   * In a site: another bridge holds the desktop's control window (its lease), so a window that
   * opens here is a mirror; the site's leases make one here control once that one is gone
   * (claimControl), one per site.
   */
  controlElsewhere?: () => boolean;
  /** In a site: asks the bridge with the control window for its overlays (hubSite.ts applies). */
  overlaysWanted?: () => void;
  /**
   * The desktop's size on a tunnel of this bridge in use now (undefined: none shows it); lets the
   * bridge settle a plain draw_overlay itself (settledOverlays.ts).
   */
  desktopSize?: () => { width: number; height: number } | undefined;
  /** This bridge's tunnels answer receipts under these tokens (relay/earlySettlement.ts). */
  receipts?: DesktopReceipts | undefined;
}

/** What happened to an approval the bridge asked for (for the audit log). */
export interface ApprovalOutcome {
  requestedBy: 'ai' | 'person';
  from: Mode;
  to: Mode;
  approved: boolean;
  /** 'answered' by the person, or how it ended without an answer. */
  how: 'answered' | 'timeout' | 'failed';
}

export type HubListener = {
  event?: (event: UiEvent, viewerId: string) => void;
  /** Stop was pressed (by the person at `byPersonId`'s window) or the bridge stopped all. */
  stop?: (byPersonId: string | undefined) => void;
  /** A window asked to take or hand over the charge (the plane checks and applies it). */
  charge?: (
    peer: ViewerPeer,
    message: Extract<ViewerToBridge, { type: 'charge' }>,
  ) => string | undefined;
  /** Windows came or went (the watchers list). */
  windowsChanged?: () => void;
  /**
   * A window of the person in charge made (by answering the approval of `call`, which waits at
   * that window) or ended a standing permission; the plane checks and applies it.
   */
  standing?: (
    peer: ViewerPeer,
    message: Extract<ViewerToBridge, { type: 'standing_grant' | 'standing_revoke' }>,
    call: PendingCallInfo | undefined,
  ) => string | undefined;
  approval?: (outcome: ApprovalOutcome) => void;
  /** The control window here announced what the AI did (ai_action). */
  aiAction?: (message: Extract<BridgeToViewer, { type: 'ai_action' }>) => void;
  /** The control window here listed what waits for the person (empty: nothing any more). */
  approvalsListed?: (message: Extract<BridgeToViewer, { type: 'approvals_waiting' }>) => void;
  /** The person at `byPersonId`'s window took the desktop from the AI (on) or handed it back. */
  takeOver?: (on: boolean, byPersonId: string | undefined) => void;
  /**
   * Something the windows are shown of the desktop may have changed — the mode, who is in charge
   * or controls, the windows, the approvals listed, the AI clients — (the fleet feed re-reads:
   * fleet/fleetFeed.ts; with approvalsListed, it hears every change it shows).
   */
  shownChanged?: () => void;
};
